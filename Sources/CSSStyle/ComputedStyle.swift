import Foundation

/// The computed values of one box for the properties that decide loads: display, fonts, list
/// markers, cursors, image-bearing properties, generated content and custom properties.
struct ComputedStyle {
    /// A specified value, the URL its relative URLs resolve against, and the shorthand that set it.
    private struct Specified {
        let value: String
        let base: URL?
        let shorthand: String?
    }

    static let initial = ComputedStyle()

    private(set) var families: [String] = ["serif"]
    private(set) var weight: Double = 400
    private(set) var fontStyle = "normal"
    private(set) var display = "inline"
    private(set) var listStyleType = "disc"
    private var listStyleImage: (String, URL?)?
    private var cursor: (String, URL?)?
    private var custom: [String: String] = [:]
    /// Values of the non-inherited image properties (backgrounds, border images, masks, content).
    private var ownImages: [(String, URL?)] = []
    private(set) var generatedContent: GeneratedContent?

    var isDisplayNone: Bool { display == "none" }

    /// Every image-bearing value of the box, `var()` already substituted.
    var imageValues: [(String, URL?)] { ownImages + [listStyleImage, cursor].compactMap { $0 } }

    private init() {}

    init(parent: ComputedStyle, userAgent: [(String, String)], author: [(StyleSheet.Declaration, URL)], familyCache: FamilyCache) {
        var specified: [String: Specified] = [:]
        custom = parent.custom
        for (name, value) in userAgent { Self.apply(name, value, base: nil, to: &specified, custom: &custom) }
        for (declaration, base) in author { Self.apply(declaration.name, declaration.value, base: base, to: &specified, custom: &custom) }
        func value(_ name: String) -> (String, Specified)? {
            guard let found = specified[name] else { return nil }
            // Declared values are trimmed already; only a substitution can add whitespace.
            guard found.value.containsASCIICaseInsensitive("var(") else { return (found.value, found) }
            return (CSSValue.substitutingVariables(found.value, custom).trimmingCSSWhitespace, found)
        }
        func keyword(_ text: String) -> String? {
            guard text.utf8.count <= 12 else { return nil }  // "revert-layer" is the longest
            let lower = text.lowercased()
            return ["inherit", "initial", "unset", "revert", "revert-layer"].contains(lower) ? lower : nil
        }
        // Inherited properties: anything but an explicit initial keeps the parent's value.
        families = parent.families
        weight = parent.weight
        fontStyle = parent.fontStyle
        listStyleType = parent.listStyleType
        listStyleImage = parent.listStyleImage
        cursor = parent.cursor
        if let (text, found) = value("font-family"), keyword(text) == nil || keyword(text) == "initial" {
            let family = found.shorthand == "font" ? FontShorthand(text).family : text
            families = keyword(text) == "initial" ? ["serif"] : familyCache.families(family)
        }
        if let (text, found) = value("font-weight"), keyword(text) == nil || keyword(text) == "initial" {
            let weightText = found.shorthand == "font" ? FontShorthand(text).weight : text
            weight = keyword(text) == "initial" ? 400 : FontFaceSet.weight(weightText, parent: parent.weight)
        }
        if let (text, found) = value("font-style"), keyword(text) == nil || keyword(text) == "initial" {
            fontStyle = FontFaceSet.style(found.shorthand == "font" ? FontShorthand(text).style : text)
        }
        if let (text, found) = value("list-style-type"), keyword(text) == nil || keyword(text) == "initial" {
            let words = text.lowercased().split(whereSeparator: { $0.isWhitespace })
            listStyleType = found.shorthand == "list-style" ? (words.contains("none") ? "none" : "disc") : (words.first.map(String.init) ?? "disc")
        }
        if let (text, found) = value("list-style-image"), keyword(text) != "inherit" {
            listStyleImage = keyword(text) == nil ? (text, found.base) : nil
        }
        if let (text, found) = value("cursor"), keyword(text) != "inherit" {
            cursor = keyword(text) == nil ? (text, found.base) : nil
        }
        if let (text, _) = value("display") {
            let lower = text.lowercased()
            display = lower == "inherit" ? parent.display : keyword(lower) == nil ? lower : "inline"
        }
        for name in ["background-image", "border-image-source", "mask-image", "content"] {
            guard let (text, found) = value(name) else { continue }
            let resolved = keyword(text) == "inherit" ? parent.ownImages.first.map(\.0) ?? "" : text
            ownImages.append((resolved, found.base))
            if name == "content" { generatedContent = GeneratedContent(resolved) }
        }
    }

    /// What children must not inherit: they keep only inherited properties.
    mutating func dropNonInherited() {
        ownImages = []
        generatedContent = nil
    }

    /// Records a declaration under the longhands it sets (only those that matter here).
    private static func apply(_ name: String, _ value: String, base: URL?, to specified: inout [String: Specified],
                              custom: inout [String: String]) {
        if name.hasPrefix("--") {
            custom[name] = value
            return
        }
        let longhands: [String]
        switch name {
        case "background", "background-image": longhands = ["background-image"]
        case "border-image", "border-image-source", "-webkit-border-image": longhands = ["border-image-source"]
        case "mask", "mask-image", "-webkit-mask", "-webkit-mask-image", "-webkit-mask-box-image", "-webkit-mask-box-image-source":
            longhands = ["mask-image"]
        case "list-style": longhands = ["list-style-image", "list-style-type"]
        case "font": longhands = ["font-family", "font-weight", "font-style"]
        case "list-style-image", "list-style-type", "cursor", "content", "display", "font-family", "font-weight", "font-style":
            longhands = [name]
        default: return
        }
        let shorthand = longhands.count > 1 || longhands[0] != name ? name : nil
        for longhand in longhands { specified[longhand] = Specified(value: value, base: base, shorthand: shorthand) }
    }
}

/// Parsed font-family lists by their text: a page's boxes name the same few lists thousands of
/// times. One per cascade run (not shared between threads).
final class FamilyCache {
    private var parsed: [String: [String]] = [:]

    func families(_ text: String) -> [String] {
        if let found = parsed[text] { return found }
        let families = CSSValue.families(text)
        if parsed.count < 4096 { parsed[text] = families }
        return families
    }
}

/// The `font` shorthand: `[style] [variant] [weight] [stretch] size[/line-height] family`, or a
/// system font keyword.
struct FontShorthand {
    var style = "normal"
    var weight = "normal"
    var family = "system-ui"

    init(_ value: String) {
        let tokens = CSSText.splitTopLevel(value, separator: " ").filter { !$0.isEmpty }
        for (position, token) in tokens.enumerated() {
            let lower = token.lowercased()
            if ["italic", "oblique"].contains(lower) { style = lower; continue }
            if ["bold", "bolder", "lighter"].contains(lower) || (Double(lower).map { $0 >= 1 && $0 <= 1000 } ?? false) {
                weight = lower
                continue
            }
            if Self.isSize(lower) {
                family = tokens[(position + 1)...].joined(separator: " ")
                return
            }
        }
    }

    private static let sizeKeywords: Set<String> = ["xx-small", "x-small", "small", "medium", "large", "x-large", "xx-large", "xxx-large", "larger", "smaller"]

    private static func isSize(_ token: String) -> Bool {
        let size = token.split(separator: "/").first.map(String.init) ?? token
        if sizeKeywords.contains(size) { return true }
        guard let first = size.first, first.isNumber || first == "." else { return size.hasPrefix("calc(") || size.hasPrefix("clamp(") || size.hasPrefix("var(") }
        return Double(size) == nil || size == "0"
    }
}

/// The `content` of a `::before`/`::after` box: its text and whether it draws anything.
struct GeneratedContent {
    private let strings: [String]
    private let attributes: [String]
    private let counters: Bool

    init?(_ value: String) {
        let lower = value.lowercased().trimmingCharacters(in: .whitespaces)
        guard !lower.isEmpty, lower != "none", lower != "normal" else { return nil }
        strings = CSSValue.strings(in: value)
        var names: [String] = []
        var rest = Substring(lower)
        while let range = rest.range(of: "attr(") {
            let inner = rest[range.upperBound...].prefix { $0 != ")" }
            names.append(inner.split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? "")
            rest = rest[range.upperBound...]
        }
        attributes = names
        counters = lower.contains("counter(") || lower.contains("counters(") || lower.contains("quote")
    }

    func text(attributes values: [String: String]) -> String {
        strings.joined() + attributes.compactMap { values[$0] }.joined() + (counters ? "1." : "")
    }
}
