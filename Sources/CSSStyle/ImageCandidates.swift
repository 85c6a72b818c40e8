import Foundation
import HTMLDOM

/// Which one image a browser loads for an `<img>`: in a `<picture>`, the first `<source>` whose
/// `media` matches and whose `type` it supports; then from `srcset` (with `src` as the 1x
/// candidate when no density or width descriptors compete) the candidate for the viewport's
/// device pixel ratio, widths divided by the `sizes` slot width, chosen as Chromium chooses.
package enum ImageCandidates {
    static let supportedTypes: Set<String> = [
        "image/png", "image/jpeg", "image/jpg", "image/pjpeg", "image/gif", "image/webp", "image/avif", "image/svg+xml",
        "image/bmp", "image/x-icon", "image/vnd.microsoft.icon", "image/apng", "image/jxl",
    ]

    /// The URL text (unresolved) the `img` element loads, or nil when it names none.
    package static func choice(for image: HTMLElement, media: MediaQuery) -> String? {
        // libxml2 does not know <source> is void, so an <img> may sit inside the sources before it.
        var picture = image.parent
        while let current = picture, current.name == "source" { picture = current.parent }
        if let picture, picture.name == "picture" {
            for source in picture.descendants {
                if source.isSame(as: image) { break }
                guard source.name == "source", let srcset = source.attribute("srcset"), !srcset.isEmpty else { continue }
                if let query = source.attribute("media"), !media.matches(query) { continue }
                if let type = source.attribute("type")?.lowercased().split(separator: ";").first, !supportedTypes.contains(type.trimmingCharacters(in: .whitespaces)) {
                    continue
                }
                if let chosen = pick(srcset: srcset, sizes: source.attribute("sizes"), src: nil, media: media) { return chosen }
            }
        }
        return pick(srcset: image.attribute("srcset"), sizes: image.attribute("sizes"), src: image.attribute("src"), media: media)
    }

    struct Candidate: Equatable {
        let url: String
        var density: Double?
        var width: Double?
    }

    static func pick(srcset: String?, sizes: String?, src: String?, media: MediaQuery) -> String? {
        var candidates = parse(srcset ?? "")
        let src = src?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let src, !src.isEmpty, !candidates.contains(where: { $0.width != nil || ($0.density ?? 1) == 1 }) {
            candidates.append(Candidate(url: src, density: 1))
        }
        guard !candidates.isEmpty else { return nil }
        let slot = slotWidth(sizes, media: media)
        var resolved = candidates.map { (url: $0.url, density: $0.width.map { $0 / slot } ?? $0.density ?? 1) }
        resolved = resolved.enumerated().sorted { $0.element.density != $1.element.density ? $0.element.density < $1.element.density : $0.offset < $1.offset }
            .map(\.element)
        var unique: [(url: String, density: Double)] = []
        for candidate in resolved where unique.last?.density != candidate.density { unique.append(candidate) }
        let ratio = media.viewport.devicePixelRatio
        for index in 0..<(unique.count - 1) {
            let next = unique[index + 1].density
            guard next >= ratio else { continue }
            let mean = (unique[index].density * next).squareRoot()
            if (ratio <= 1 && ratio > unique[index].density) || ratio >= mean { return unique[index + 1].url }
            return unique[index].url
        }
        return unique.last?.url
    }

    /// `srcset` candidates (HTML's parsing: a URL, then descriptors up to a comma outside parentheses).
    static func parse(_ srcset: String) -> [Candidate] {
        var result: [Candidate] = []
        let scalars = Array(srcset.unicodeScalars)
        var index = 0
        while index < scalars.count {
            while index < scalars.count, SelectorParser.isSpace(scalars[index]) || scalars[index] == "," { index += 1 }
            guard index < scalars.count else { break }
            let start = index
            while index < scalars.count, !SelectorParser.isSpace(scalars[index]) { index += 1 }
            var url = String(String.UnicodeScalarView(scalars[start..<index]))
            var descriptors = ""
            if url.hasSuffix(",") {
                while url.hasSuffix(",") { url.removeLast() }
            } else {
                var depth = 0
                while index < scalars.count {
                    let scalar = scalars[index]
                    if scalar == "(" { depth += 1 }
                    if scalar == ")" { depth -= 1 }
                    if scalar == ",", depth <= 0 { index += 1; break }
                    descriptors.unicodeScalars.append(scalar)
                    index += 1
                }
            }
            guard !url.isEmpty else { continue }
            var candidate = Candidate(url: url)
            var valid = true
            for descriptor in descriptors.split(whereSeparator: { $0.isWhitespace }) {
                let text = descriptor.lowercased()
                if text.hasSuffix("x"), let value = Double(text.dropLast()), value.isFinite, candidate.density == nil, candidate.width == nil, value >= 0 {
                    candidate.density = value
                } else if text.hasSuffix("w"), let value = Double(text.dropLast()), value.isFinite, candidate.width == nil, candidate.density == nil, value > 0 {
                    candidate.width = value
                } else if !text.hasSuffix("h") {
                    valid = false
                }
            }
            if valid { result.append(candidate) }
        }
        return result
    }

    /// The width in CSS pixels `sizes` gives the image slot (100vw without `sizes`).
    static func slotWidth(_ sizes: String?, media: MediaQuery) -> Double {
        let fallback = Double(media.viewport.width)
        guard let sizes else { return fallback }
        for entry in CSSText.splitTopLevel(sizes, separator: ",") {
            let text = entry.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty else { continue }
            var length = text
            if text.hasSuffix(")") == false, let split = text.lastIndex(where: { $0.isWhitespace }) {
                let condition = String(text[..<split]).trimmingCharacters(in: .whitespaces)
                length = String(text[split...]).trimmingCharacters(in: .whitespaces)
                guard media.matches(condition) else { continue }
            } else if text.hasPrefix("(") {
                continue
            }
            if length.lowercased() == "auto" { return fallback }
            if let value = CSSLength.pixels(length, viewport: media.viewport), value >= 0 { return max(value, 1) }
            return fallback
        }
        return fallback
    }
}
