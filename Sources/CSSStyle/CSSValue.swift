import Foundation

/// Reading property values: `var()` substitution, the images a value names (with `image-set()`
/// choosing one candidate for the device pixel ratio), strings, and font family lists.
enum CSSValue {
    /// `value` with each `var(--name, fallback)` replaced from `custom` (nested up to a depth;
    /// a cycle or an unknown name without a fallback gives an empty value).
    static func substitutingVariables(_ value: String, _ custom: [String: String], depth: Int = 0) -> String {
        guard value.containsASCIICaseInsensitive("var("), depth < 8 else { return depth < 8 ? value : "" }
        var result = ""
        var rest = Substring(value)
        while let range = rest.range(of: "var(") {
            result += rest[..<range.lowerBound]
            var index = range.upperBound
            var level = 1
            while index < rest.endIndex, level > 0 {
                if rest[index] == "(" { level += 1 }
                if rest[index] == ")" { level -= 1 }
                if level > 0 { index = rest.index(after: index) }
            }
            let inner = String(rest[range.upperBound..<index])
            let pieces = inner.split(separator: ",", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            let name = pieces.first ?? ""
            if let found = custom[name] {
                result += substitutingVariables(found, custom, depth: depth + 1)
            } else if pieces.count == 2 {
                result += substitutingVariables(pieces[1], custom, depth: depth + 1)
            }
            rest = index < rest.endIndex ? rest[rest.index(after: index)...] : ""
        }
        return result + rest
    }

    /// The image URLs (as written) a property value loads: each `url()`, and from each
    /// `image-set()` the candidate a browser picks for `ratio`.
    static func imageURLs(_ value: String, devicePixelRatio ratio: Double) -> [String] {
        guard value.containsASCIICaseInsensitive("url(") || value.containsASCIICaseInsensitive("image-set(") else { return [] }
        var result: [String] = []
        var rest = Substring(value)
        while !rest.isEmpty {
            let lowered = rest.lowercased()
            guard let setRange = lowered.range(of: "image-set(") else {
                result += CSSURLScanner.references(in: String(rest)).filter { !$0.isImport }.map(\.url)
                break
            }
            let setStart = rest.index(rest.startIndex, offsetBy: lowered.distance(from: lowered.startIndex, to: setRange.lowerBound))
            result += CSSURLScanner.references(in: String(rest[..<setStart])).filter { !$0.isImport }.map(\.url)
            let open = rest.index(setStart, offsetBy: "image-set(".count)
            var index = open
            var level = 1
            while index < rest.endIndex, level > 0 {
                if rest[index] == "(" { level += 1 }
                if rest[index] == ")" { level -= 1 }
                if level > 0 { index = rest.index(after: index) }
            }
            if let chosen = imageSetChoice(String(rest[open..<index]), ratio: ratio) { result.append(chosen) }
            rest = index < rest.endIndex ? rest[rest.index(after: index)...] : ""
        }
        return result
    }

    /// The `image-set()` candidate for `ratio`: the smallest resolution at least `ratio`, else the largest.
    private static func imageSetChoice(_ arguments: String, ratio: Double) -> String? {
        var candidates: [(url: String, resolution: Double)] = []
        for option in CSSText.splitTopLevel(arguments, separator: ",") {
            let trimmed = option.trimmingCharacters(in: .whitespacesAndNewlines)
            var url: String?
            if trimmed.lowercased().hasPrefix("url(") {
                url = CSSURLScanner.references(in: trimmed, limit: 1).first?.url
            } else if let quote = trimmed.first, quote == "\"" || quote == "'" {
                url = strings(in: trimmed).first
            }
            guard let url else { continue }
            if let type = trimmed.range(of: "type(", options: .caseInsensitive) {
                let mime = strings(in: String(trimmed[type.upperBound...])).first?.lowercased() ?? ""
                if !ImageCandidates.supportedTypes.contains(mime) { continue }
            }
            var resolution = 1.0
            for word in CSSText.splitTopLevel(trimmed, separator: " ").reversed() {
                let token = word.lowercased().trimmingCharacters(in: .whitespaces)
                if token.hasSuffix("dppx"), let value = Double(token.dropLast(4)), value.isFinite { resolution = value; break }
                if token.hasSuffix("dpi"), let value = Double(token.dropLast(3)), value.isFinite { resolution = value / 96; break }
                if token.hasSuffix("x"), let value = Double(token.dropLast()), value.isFinite { resolution = value; break }
            }
            candidates.append((url, resolution))
        }
        let sorted = candidates.sorted { $0.resolution < $1.resolution }
        return (sorted.first { $0.resolution >= ratio } ?? sorted.last)?.url
    }

    /// The quoted strings of a value, escapes decoded (`content: "\f015"` gives U+F015).
    static func strings(in value: String) -> [String] {
        let scalars = Array(value.unicodeScalars)
        var result: [String] = []
        var index = 0
        while index < scalars.count {
            let quote = scalars[index]
            guard quote == "\"" || quote == "'" else { index += 1; continue }
            index += 1
            var text = String.UnicodeScalarView()
            while index < scalars.count, scalars[index] != quote {
                if scalars[index] == "\\" {
                    if index + 1 < scalars.count, scalars[index + 1] == "\n" { index += 2; continue }
                    guard let decoded = CSSEscapes.decode(scalars, &index) else { index += 1; continue }
                    text.append(decoded)
                } else {
                    text.append(scalars[index])
                    index += 1
                }
            }
            index += 1
            result.append(String(text))
        }
        return result
    }

    /// A font-family list: names lower-cased, quotes removed, escapes decoded.
    static func families(_ value: String) -> [String] {
        CSSText.splitTopLevel(value, separator: ",").compactMap { item in
            let trimmed = item.trimmingCharacters(in: .whitespacesAndNewlines)
            if let quote = trimmed.first, quote == "\"" || quote == "'" { return strings(in: trimmed).first?.lowercased() }
            let words = trimmed.split(whereSeparator: { $0.isWhitespace }).map { word -> String in
                var parser = SelectorParser(String(word))
                return parser.parseIdentifier() ?? String(word)
            }
            return words.isEmpty ? nil : words.joined(separator: " ").lowercased()
        }
    }
}
