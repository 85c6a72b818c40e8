import Foundation

/// A style sheet as far as loading decisions need it: style rules (selectors and declarations),
/// `@font-face` rules and `@import`s, with `@media`, `@supports`, `@layer` and `@container`
/// blocks already resolved for one viewport (rules inside a false condition are left out).
/// Everything else (`@keyframes`, `@page`, `@counter-style`...) loads nothing and is skipped.
package struct StyleSheet {
    struct Declaration: Equatable {
        let name: String
        let value: String
        let important: Bool
    }

    struct Rule {
        let selectors: SelectorList
        let declarations: [Declaration]
    }

    struct Import: Equatable {
        let url: String
        let media: String
    }

    var imports: [Import] = []
    var rules: [Rule] = []
    var fontFaces: [[Declaration]] = []
    /// Whether the text held more than the rules the parse was allowed to keep (the rest was
    /// not read).
    private(set) var isCut = false
    private var rulesLeft: Int

    /// Imports, style rules and font faces kept.
    var ruleCount: Int { imports.count + rules.count + fontFaces.count }

    /// Parses `text` for `media` (the conditions of `@media` and `@supports` are evaluated),
    /// keeping at most `maximumRules` rules: a hostile sheet may hold millions.
    init(parsing text: String, media: MediaQuery, maximumRules: Int = .max) {
        rulesLeft = maximumRules
        let bytes = CSSText.withoutComments(Array(text.utf8))
        parseRules(bytes[...], media: media, topLevel: true)
    }

    /// Counts one rule to keep; false (and the sheet cut) once the limit is reached.
    private mutating func takeRule() -> Bool {
        guard rulesLeft > 0 else {
            isCut = true
            return false
        }
        rulesLeft -= 1
        return true
    }

    private mutating func parseRules(_ text: ArraySlice<UInt8>, media: MediaQuery, topLevel: Bool) {
        var index = text.startIndex
        var importsAllowed = topLevel
        while index < text.endIndex, !isCut {
            let byte = text[index]
            if CSSText.isSpace(byte) || byte == UInt8(ascii: ";") { index += 1; continue }
            if byte == UInt8(ascii: "}") { index += 1; continue }  // a stray close
            if CSSText.starts(text, at: index, "<!--") { index += 4; continue }
            if CSSText.starts(text, at: index, "-->") { index += 3; continue }
            let (prelude, block, next) = CSSText.readRule(text, from: index)
            index = next
            let preludeText = String(decoding: prelude, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if byte == UInt8(ascii: "@") {
                let name = preludeText.prefix { !SelectorParser.isSpace($0.unicodeScalars.first!) && $0 != "(" && $0 != "\"" && $0 != "'" }.lowercased()
                let condition = String(preludeText.dropFirst(name.count)).trimmingCharacters(in: .whitespacesAndNewlines)
                switch name {
                case "@import" where importsAllowed && block == nil:
                    if let parsed = Self.importRule(condition), takeRule() { imports.append(parsed) }
                case "@charset", "@namespace":
                    break
                case "@layer" where block == nil:
                    break
                case "@media":
                    importsAllowed = false
                    if let block, media.matches(condition) { parseRules(block, media: media, topLevel: false) }
                case "@supports":
                    importsAllowed = false
                    if let block, SupportsCondition.matches(condition) { parseRules(block, media: media, topLevel: false) }
                case "@layer", "@container", "@scope", "@starting-style", "@document":
                    // Layers reorder the cascade (not modelled); containers and scopes need layout: their rules count.
                    importsAllowed = false
                    if let block, name != "@document" { parseRules(block, media: media, topLevel: false) }
                case "@font-face":
                    importsAllowed = false
                    if let block, takeRule() { fontFaces.append(Self.declarations(block)) }
                default:
                    importsAllowed = false
                }
                continue
            }
            importsAllowed = false
            guard let block, let selectors = SelectorList(preludeText), takeRule() else { continue }
            rules.append(Rule(selectors: selectors, declarations: Self.declarations(block)))
        }
    }

    /// `url(x) media`, `"x" media`, with optional `layer(...)` and `supports(...)`.
    private static func importRule(_ text: String) -> Import? {
        guard let reference = CSSURLScanner.references(in: "@import " + text, limit: 1).first, reference.isImport else { return nil }
        var rest = Substring(text)
        if rest.lowercased().hasPrefix("url(") {
            // An unclosed url( runs to the end of the rule: no media list follows.
            rest = rest.firstIndex(of: ")").map { rest[rest.index(after: $0)...] } ?? ""
        } else if let quote = rest.first, quote == "\"" || quote == "'" {
            rest = rest.dropFirst()
            while let first = rest.first, first != quote { rest = rest.dropFirst(first == "\\" ? 2 : 1) }
            rest = rest.dropFirst()
        }
        var media = String(rest).trimmingCharacters(in: .whitespaces)
        if media.lowercased().hasPrefix("layer") {
            media = String(media.drop { $0 != ")" && $0 != " " }.dropFirst()).trimmingCharacters(in: .whitespaces)
        }
        if media.lowercased().hasPrefix("supports(") {
            let inner = String(CSSText.splitTopLevel(media, separator: " ").first ?? "")
            if !SupportsCondition.matches(String(inner.dropFirst(9).dropLast())) { media = "not all" } else {
                media = String(media.dropFirst(inner.count)).trimmingCharacters(in: .whitespaces)
            }
        }
        return Import(url: reference.url, media: media)
    }

    /// The declarations of a block (nested rules, as CSS nesting writes them, are skipped).
    /// Split on the bytes: sheets of a hundred kilobytes hold thousands of declarations.
    static func declarations(_ block: ArraySlice<UInt8>) -> [Declaration] {
        var result: [Declaration] = []
        var start = block.startIndex
        var index = block.startIndex
        var depth = 0
        func piece(_ range: Range<Int>) {
            guard let colon = block[range].firstIndex(of: UInt8(ascii: ":")) else { return }
            let name = String(decoding: block[range.lowerBound..<colon], as: UTF8.self).trimmingCSSWhitespace
            guard !name.isEmpty, !name.utf8.contains(where: { $0 == UInt8(ascii: "{") || $0 == 0x20 }) else { return }
            var value = String(decoding: block[(colon + 1)..<range.upperBound], as: UTF8.self).trimmingCSSWhitespace
            var important = false
            if let bang = value.lastIndex(of: "!"),
               value[value.index(after: bang)...].lowercased().trimmingCSSWhitespace == "important" {
                important = true
                value = String(value[..<bang]).trimmingCSSWhitespace
            }
            guard !value.utf8.contains(UInt8(ascii: "{")) else { return }
            result.append(Declaration(name: name.hasPrefix("--") ? name : name.lowercased(), value: value, important: important))
        }
        while index < block.endIndex {
            switch block[index] {
            case UInt8(ascii: "\""), UInt8(ascii: "'"): index = CSSText.stringEnd(block, from: index); continue
            case UInt8(ascii: "\\"): index += 2; continue
            case UInt8(ascii: "("), UInt8(ascii: "["), UInt8(ascii: "{"): depth += 1
            case UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: "}"): depth = max(0, depth - 1)
            case UInt8(ascii: ";") where depth == 0:
                piece(start..<index)
                start = index + 1
            default: break
            }
            index += 1
        }
        if start < block.endIndex { piece(start..<min(index, block.endIndex)) }
        return result
    }
}

/// `@supports` conditions: `(property: value)` is true for properties and values Chromium has
/// (vendor prefixes other than -webkit- are not), `selector()` for selectors our engine parses.
enum SupportsCondition {
    static func matches(_ text: String) -> Bool {
        var tokens = CSSConditionTokens(text)
        return evaluate(&tokens) == true
    }

    private static func evaluate(_ tokens: inout CSSConditionTokens) -> Bool? {
        CSSConditionTokens.evaluate(&tokens) { token in
            switch token {
            case .word: return nil
            case .function(let name, let argument):
                switch name {
                case "selector": return SelectorList(argument) != nil
                case "font-format": return ["woff2", "woff", "truetype", "opentype", "collection"].contains(argument.lowercased().trimmingCharacters(in: .whitespaces))
                case "font-tech": return ["variations", "features-opentype", "color-colrv0", "color-colrv1", "color-cbdt", "color-sbix", "palettes", "incremental"]
                    .contains(argument.lowercased().trimmingCharacters(in: .whitespaces))
                default: return false
                }
            case .group(let group):
                var inner = CSSConditionTokens(group)
                if inner.startsWithGroup || inner.peekWord() == "not" { return evaluate(&inner) }
                if case .function = inner.next() { inner = CSSConditionTokens(group); return evaluate(&inner) }
                return declarationSupported(group)
            }
        }
    }

    private static let unprefixedOnly = ["-moz-", "-ms-", "-o-", "-khtml-"]
    private static let displayValues: Set<String> = [
        "none", "block", "inline", "inline-block", "flex", "inline-flex", "grid", "inline-grid", "table", "table-row",
        "table-cell", "list-item", "contents", "flow-root", "run-in", "ruby", "math", "-webkit-box", "-webkit-inline-box",
        "table-caption", "table-column", "table-row-group", "table-header-group", "table-footer-group", "table-column-group",
        "inline-table", "block flex", "inline flex", "block grid", "inline grid", "block flow", "inline flow-root",
    ]

    private static func declarationSupported(_ text: String) -> Bool? {
        guard let colon = text.firstIndex(of: ":") else { return false }
        let name = text[..<colon].trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        if name.hasPrefix("--") { return true }
        if unprefixedOnly.contains(where: { name.hasPrefix($0) || value.hasPrefix($0) }) || value.isEmpty { return false }
        if name == "display" { return displayValues.contains(value) }
        return true
    }
}
