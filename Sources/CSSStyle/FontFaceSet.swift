import Foundation

/// The `@font-face` rules of a document and the CSS Fonts 4 matching that decides which of
/// them text needs: per family, style first (italic, oblique, normal in the order the
/// wanted style prefers), then weight (the wanted weight, then the spec's search order), then
/// `unicode-range` against the text. Each face loads the first source in a format we declare
/// support for (woff2, woff, truetype, opentype; by `format()` or, without one, by extension),
/// from the face's last `src` declaration. `local()` sources are taken as not installed.
struct FontFaceSet {
    struct Face {
        let family: String
        let weights: ClosedRange<Double>
        /// "normal", "italic" or "oblique".
        let style: String
        let ranges: [ClosedRange<UInt32>]?
        let url: URL?
        /// The sheet the rule is in.
        let base: URL
    }

    /// What a run of text asks for.
    struct Request: Hashable {
        let families: [String]
        let weight: Double
        let style: String
    }

    private(set) var faces: [String: [Face]] = [:]

    static let generic: Set<String> = [
        "serif", "sans-serif", "monospace", "cursive", "fantasy", "system-ui", "ui-serif", "ui-sans-serif", "ui-monospace",
        "ui-rounded", "math", "emoji", "fangsong", "-webkit-body", "-webkit-pictograph",
    ]
    /// Names a Debian desktop resolves to installed fonts (fontconfig's metric-compatible
    /// aliases as Chromium accepts them): a family list stops there as at a generic family.
    static let installed: Set<String> = [
        "arial", "times new roman", "courier new", "liberation sans", "liberation serif", "liberation mono", "dejavu sans",
        "dejavu serif", "dejavu sans mono", "arimo", "tinos", "cousine",
    ]

    mutating func add(_ declarations: [StyleSheet.Declaration], base: URL) {
        var values: [String: String] = [:]
        for declaration in declarations { values[declaration.name] = declaration.value }
        guard let family = values["font-family"].flatMap({ CSSValue.families($0).first }) else { return }
        let face = Face(family: family, weights: Self.weightRange(values["font-weight"]), style: Self.style(values["font-style"]),
                        ranges: values["unicode-range"].map(Self.ranges), url: values["src"].flatMap { Self.source($0, base: base) },
                        base: base)
        faces[family, default: []].append(face)
    }

    /// The URLs of the faces `request` needs for `text`.
    func urls(for request: Request, text: Set<UInt32>) -> [StyleResolver.Need] {
        var remaining = text
        var result: [StyleResolver.Need] = []
        for family in request.families {
            if Self.generic.contains(family) || Self.installed.contains(family) { break }
            guard let candidates = faces[family], !candidates.isEmpty else { continue }
            let chosen = Self.best(candidates, weight: request.weight, style: request.style)
            // Later faces of the same descriptors take precedence over earlier ones.
            for face in chosen.reversed() where !remaining.isEmpty {
                guard let ranges = face.ranges else {
                    if let url = face.url { result.append(StyleResolver.Need(url: url, base: face.base)) }
                    remaining.removeAll()
                    break
                }
                let covered = remaining.filter { code in ranges.contains { $0.contains(code) } }
                guard !covered.isEmpty else { continue }
                if let url = face.url { result.append(StyleResolver.Need(url: url, base: face.base)) }
                remaining.subtract(covered)
            }
            if remaining.isEmpty { break }
        }
        return result
    }

    /// The faces with the descriptors CSS Fonts 4 §5.2 picks, in declaration order.
    private static func best(_ candidates: [Face], weight: Double, style: String) -> [Face] {
        let styleOrder: [String] = switch style {
        case "italic": ["italic", "oblique", "normal"]
        case "oblique": ["oblique", "italic", "normal"]
        default: ["normal", "oblique", "italic"]
        }
        guard let wantedStyle = styleOrder.first(where: { wanted in candidates.contains { $0.style == wanted } }) else { return [] }
        let styled = candidates.filter { $0.style == wantedStyle }
        func distance(_ face: Face) -> (Int, Double) {
            if face.weights.contains(weight) { return (0, 0) }
            let below = face.weights.upperBound < weight
            let gap = below ? weight - face.weights.upperBound : face.weights.lowerBound - weight
            if weight >= 400 && weight <= 500 {
                if !below && face.weights.lowerBound <= 500 { return (1, gap) }
                return below ? (2, gap) : (3, gap)
            }
            if weight < 400 { return below ? (1, gap) : (2, gap) }
            return below ? (2, gap) : (1, gap)
        }
        guard let bestDistance = styled.map(distance).min(by: { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }) else { return [] }
        let bestFaces = styled.filter { distance($0) == bestDistance }
        guard let weights = bestFaces.last?.weights else { return [] }
        return bestFaces.filter { $0.weights == weights }
    }

    private static func weightRange(_ value: String?) -> ClosedRange<Double> {
        let parts = (value ?? "normal").split(whereSeparator: { $0.isWhitespace }).map { weight(String($0), parent: 400) }
        guard let low = parts.first else { return 400...400 }
        let high = parts.count > 1 ? parts[1] : low
        return min(low, high)...max(low, high)
    }

    /// A `font-weight` value as a number (`bolder`/`lighter` relative to the parent's).
    static func weight(_ value: String, parent: Double) -> Double {
        switch value.lowercased() {
        case "normal": 400
        case "bold": 700
        case "bolder": parent < 350 ? 400 : parent < 550 ? 700 : 900
        case "lighter": parent < 550 ? 100 : parent < 750 ? 400 : 700
        default: Double(value).map { min(max($0, 1), 1000) } ?? parent
        }
    }

    static func style(_ value: String?) -> String {
        let word = value?.lowercased().split(whereSeparator: { $0.isWhitespace }).first.map(String.init) ?? "normal"
        return ["italic", "oblique"].contains(word) ? word : "normal"
    }

    /// `U+0-7F, U+0100-024F, U+4??`.
    private static func ranges(_ value: String) -> [ClosedRange<UInt32>] {
        value.split(separator: ",").compactMap { item in
            var text = item.trimmingCharacters(in: .whitespaces).uppercased()
            guard text.hasPrefix("U+") else { return nil }
            text.removeFirst(2)
            if text.contains("?") {
                guard let low = UInt32(text.replacingOccurrences(of: "?", with: "0"), radix: 16),
                      let high = UInt32(text.replacingOccurrences(of: "?", with: "F"), radix: 16) else { return nil }
                return low...high
            }
            let ends = text.split(separator: "-").compactMap { UInt32($0, radix: 16) }
            guard let low = ends.first else { return nil }
            return low...max(low, ends.last!)
        }
    }

    static let supportedFormats: Set<String> = [
        "woff2", "woff", "truetype", "opentype", "woff2-variations", "woff-variations", "truetype-variations", "opentype-variations", "collection",
    ]
    private static let unsupportedExtensions: Set<String> = ["eot", "svg", "svgz"]

    /// The first source of a `src` value in a supported format, resolved against the sheet.
    private static func source(_ value: String, base: URL) -> URL? {
        for item in CSSText.splitTopLevel(value, separator: ",") {
            let text = item.trimmingCharacters(in: .whitespacesAndNewlines)
            if text.lowercased().hasPrefix("local(") {
                // A font the machine has needs no download (the fonts a Debian desktop has).
                let name = CSSValue.families(String(text.dropFirst(6).dropLast())).first ?? ""
                if installed.contains(name) { return nil }
                continue
            }
            guard text.lowercased().hasPrefix("url("), let reference = CSSURLScanner.references(in: text, limit: 1).first,
                  let url = SubresourceURL.resolve(reference.url, against: base) else { continue }
            if let format = text.range(of: "format(", options: .caseInsensitive) {
                let argument = String(text[format.upperBound...].prefix { $0 != ")" })
                let names = CSSValue.strings(in: argument) + argument.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                guard names.contains(where: { supportedFormats.contains($0.lowercased()) }) else { continue }
            } else if unsupportedExtensions.contains(url.pathExtension.lowercased()) {
                continue
            }
            return url
        }
        return nil
    }
}
