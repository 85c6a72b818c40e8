import Foundation

/// The screen a page is laid out for: CSS pixels and device pixels per CSS pixel. Media
/// queries, `@supports`, `srcset`/`sizes` and `<picture>` choose against it.
public struct Viewport: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var devicePixelRatio: Double

    public init(width: Int = 1280, height: Int = 800, devicePixelRatio: Double = 1) {
        self.width = width
        self.height = height
        self.devicePixelRatio = devicePixelRatio
    }

    /// "WxH" (as `--viewport 1280x800`), optionally "@R" for the device pixel ratio ("390x844@3").
    public init?(parsing text: String) {
        let parts = text.lowercased().split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        let size = parts[0].split(separator: "x", omittingEmptySubsequences: false)
        guard size.count == 2, let width = Int(size[0]), let height = Int(size[1]), (1...100_000).contains(width),
              (1...100_000).contains(height) else { return nil }
        var ratio = 1.0
        if parts.count == 2 {
            guard let value = Double(parts[1]), value > 0, value <= 16 else { return nil }
            ratio = value
        }
        self.init(width: width, height: height, devicePixelRatio: ratio)
    }
}

/// Media Queries Level 4 evaluated for a screen (never print) of a given viewport, with the
/// preferences of a default browser without JavaScript (light scheme, fine pointer that can
/// hover, `scripting: none`). An unknown feature or type makes its query false, as in browsers.
package struct MediaQuery {
    let viewport: Viewport

    package init(viewport: Viewport) { self.viewport = viewport }

    /// A comma-separated media query list; an empty list matches.
    func matches(_ list: String) -> Bool {
        let queries = CSSText.splitTopLevel(list, separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        if queries.allSatisfy(\.isEmpty) { return true }
        return queries.contains { !$0.isEmpty && evaluateQuery($0.lowercased()) == true }
    }

    private func evaluateQuery(_ query: String) -> Bool? {
        var tokens = CSSConditionTokens(query)
        guard let first = tokens.peekWord() else { return evaluateCondition(&tokens) }
        var negate = false
        if first == "not" || first == "only" {
            tokens.next()
            negate = first == "not"
            if tokens.peekWord() == nil { return negate ? evaluateCondition(&tokens).map { !$0 } : nil }
        }
        guard let type = tokens.nextWord() else { return nil }
        var result: Bool? = ["all", "screen"].contains(type)
        if !["all", "screen", "print", "speech", "aural", "braille", "embossed", "handheld", "projection", "tty", "tv"].contains(type) { result = false }
        if tokens.peekWord() == "and" {
            tokens.next()
            let condition = evaluateCondition(&tokens)
            result = result == true ? condition : result
        }
        guard tokens.isAtEnd else { return nil }
        return negate ? result.map { !$0 } : result
    }

    /// `not C`, `C and C...`, `C or C...` over parenthesized groups.
    private func evaluateCondition(_ tokens: inout CSSConditionTokens) -> Bool? {
        CSSConditionTokens.evaluate(&tokens) { token in
            guard case .group(let group) = token else { return nil }
            var inner = CSSConditionTokens(group)
            if inner.startsWithGroup || inner.peekWord() == "not" { return evaluateCondition(&inner) }
            return evaluateFeature(group)
        }
    }

    private func evaluateFeature(_ text: String) -> Bool? {
        let feature = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if let colon = feature.firstIndex(of: ":") {
            let name = feature[..<colon].trimmingCharacters(in: .whitespaces)
            let value = feature[feature.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            for (prefix, comparison) in [("min-", ">="), ("max-", "<=")] where name.hasPrefix(prefix) {
                return compare(String(name.dropFirst(prefix.count)), comparison, value)
            }
            for (prefix, comparison) in [("-webkit-min-", ">="), ("-webkit-max-", "<=")] where name.hasPrefix(prefix) {
                return compare(String(name.dropFirst(prefix.count)), comparison, value)
            }
            if let discrete = discrete(name) { return discrete == value }
            return compare(name.hasPrefix("-webkit-") ? String(name.dropFirst(8)) : name, "=", value)
        }
        // Range syntax: `width >= 600px`, `400px <= width < 700px`.
        let parts = feature.components(separatedBy: CharacterSet(charactersIn: "<>=")).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        let operators = feature.split(whereSeparator: { !"<>=".contains($0) }).map(String.init)
        if parts.count == 2, operators.count == 1 {
            if number(parts[0], for: "width") == nil { return compare(parts[0], operators[0], parts[1]) }
            return compare(parts[1], Self.flipped(operators[0]), parts[0])
        }
        if parts.count == 3, operators.count == 2 {
            guard let low = compare(parts[1], Self.flipped(operators[0]), parts[0]), let high = compare(parts[1], operators[1], parts[2]) else { return nil }
            return low && high
        }
        if parts.count == 1 { return boolean(feature) }
        return nil
    }

    private static func flipped(_ op: String) -> String {
        switch op {
        case "<": ">"
        case "<=": ">="
        case ">": "<"
        case ">=": "<="
        default: op
        }
    }

    /// Features with keyword values, as a default desktop browser without JavaScript has them.
    private func discrete(_ name: String) -> String? {
        switch name {
        case "orientation": viewport.height >= viewport.width ? "portrait" : "landscape"
        case "hover", "any-hover": "hover"
        case "pointer", "any-pointer": "fine"
        case "prefers-color-scheme": "light"
        case "prefers-reduced-motion", "prefers-reduced-transparency", "prefers-contrast", "prefers-reduced-data": "no-preference"
        case "forced-colors", "inverted-colors": "none"
        case "display-mode": "browser"
        case "update": "fast"
        case "scripting": "none"
        case "dynamic-range", "video-dynamic-range": "standard"
        case "color-gamut": "srgb"
        case "overflow-block", "overflow-inline": "scroll"
        case "scan": "progressive-never-matches"
        default: nil
        }
    }

    /// `(color)`, `(hover)`: true when the feature's value is not zero or none.
    private func boolean(_ name: String) -> Bool? {
        if let value = discrete(name) { return value != "none" && value != "no-preference" && !value.hasSuffix("never-matches") }
        switch name {
        case "color", "width", "height", "device-width", "device-height", "resolution", "aspect-ratio": return true
        case "monochrome", "grid", "color-index": return false
        default: return nil
        }
    }

    private func compare(_ name: String, _ op: String, _ value: String) -> Bool? {
        guard let actual = actual(name), let wanted = number(value, for: name) else { return nil }
        let epsilon = 1e-9
        switch op {
        case "=": return abs(actual - wanted) < epsilon
        case "<": return actual < wanted - epsilon
        case "<=": return actual <= wanted + epsilon
        case ">": return actual > wanted + epsilon
        case ">=": return actual >= wanted - epsilon
        default: return nil
        }
    }

    private func actual(_ name: String) -> Double? {
        switch name {
        case "width", "device-width": Double(viewport.width)
        case "height", "device-height": Double(viewport.height)
        case "aspect-ratio", "device-aspect-ratio": Double(viewport.width) / Double(viewport.height)
        case "resolution", "device-pixel-ratio": viewport.devicePixelRatio
        case "color": 8
        case "monochrome", "color-index", "grid": 0
        default: nil
        }
    }

    /// A value in the unit the feature compares in: CSS px, dppx, a ratio or a plain number.
    private func number(_ text: String, for name: String) -> Double? {
        let value = text.lowercased().trimmingCharacters(in: .whitespaces)
        if name.hasSuffix("aspect-ratio") {
            let sides = value.split(separator: "/").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            if sides.count == 2, sides[1] != 0 { return sides[0] / sides[1] }
            return sides.count == 1 ? sides[0] : nil
        }
        if name == "resolution" {
            let units: [(String, Double)] = [("dppx", 1), ("dpcm", 2.54 / 96), ("dpi", 1 / 96.0), ("x", 1)]
            for (unit, scale) in units where value.hasSuffix(unit) { return Double(value.dropLast(unit.count)).map { $0 * scale } }
            return nil
        }
        return CSSLength.pixels(value, viewport: viewport) ?? Double(value)
    }
}

/// CSS lengths as CSS pixels (font-relative units at the default 16px font size).
enum CSSLength {
    static func pixels(_ text: String, viewport: Viewport) -> Double? {
        let value = text.lowercased().trimmingCharacters(in: .whitespaces)
        let units: [(String, Double)] = [
            ("px", 1), ("rem", 16), ("em", 16), ("ex", 8), ("ch", 8), ("vw", Double(viewport.width) / 100),
            ("vh", Double(viewport.height) / 100), ("vmin", Double(min(viewport.width, viewport.height)) / 100),
            ("vmax", Double(max(viewport.width, viewport.height)) / 100), ("cm", 96 / 2.54), ("mm", 96 / 25.4),
            ("q", 96 / 101.6), ("in", 96), ("pt", 96 / 72.0), ("pc", 16),
        ]
        for (unit, scale) in units.sorted(by: { $0.0.count > $1.0.count }) where value.hasSuffix(unit) {
            return Double(value.dropLast(unit.count)).map { $0 * scale }
        }
        return value == "0" ? 0 : nil
    }
}
