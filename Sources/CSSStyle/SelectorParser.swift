/// Parses selector text (CSS escapes, quoted attribute values, nested pseudo-class arguments)
/// into `ComplexSelector`s. Returns nil for what a browser would reject, so rules keep or lose
/// their selectors the way they do in a browser.
struct SelectorParser {
    private let text: [Unicode.Scalar]
    private var index = 0

    init(_ text: String) { self.text = Array(text.unicodeScalars) }

    var atEnd: Bool {
        var probe = index
        while probe < text.count, Self.isSpace(text[probe]) { probe += 1 }
        return probe >= text.count
    }

    /// A comma-separated list up to the end or a `)`; a forgiving list drops invalid members.
    mutating func parseList(forgiving: Bool) -> [ComplexSelector]? {
        var result: [ComplexSelector] = []
        while true {
            let start = index
            if let selector = parseComplex(), peekListEnd() {
                result.append(selector)
            } else {
                guard forgiving else { return nil }
                index = start
                skipToListEnd()
            }
            skipSpace()
            guard index < text.count, text[index] == "," else { return result }
            index += 1
        }
    }

    /// A relative selector list (`:has()` arguments): each may start with a combinator.
    private mutating func parseRelativeList() -> [(ComplexSelector.Combinator, ComplexSelector)]? {
        var result: [(ComplexSelector.Combinator, ComplexSelector)] = []
        while true {
            skipSpace()
            var combinator = ComplexSelector.Combinator.descendant
            if index < text.count, let explicit = Self.combinator(text[index]) {
                combinator = explicit
                index += 1
            }
            guard let selector = parseComplex(), peekListEnd() else { return nil }
            result.append((combinator, selector))
            guard index < text.count, text[index] == "," else { return result }
            index += 1
        }
    }

    private mutating func parseComplex() -> ComplexSelector? {
        skipSpace()
        var compounds: [CompoundSelector] = []
        var combinators: [ComplexSelector.Combinator] = []
        var pseudoElement: ComplexSelector.PseudoElement?
        while true {
            guard pseudoElement == nil, let (compound, pseudo) = parseCompound() else { return nil }
            compounds.append(compound)
            pseudoElement = pseudo
            let hadSpace = skipSpace()
            guard index < text.count, text[index] != ",", text[index] != ")" else { break }
            if let combinator = Self.combinator(text[index]) {
                index += 1
                skipSpace()
                combinators.append(combinator)
            } else if hadSpace {
                combinators.append(.descendant)
            } else {
                return nil
            }
        }
        guard combinators.count == compounds.count - 1 else { return nil }
        return ComplexSelector(compounds: compounds.reversed(), combinators: combinators.reversed(), pseudoElement: pseudoElement)
    }

    private mutating func parseCompound() -> (CompoundSelector, ComplexSelector.PseudoElement?)? {
        var compound = CompoundSelector()
        var pseudoElement: ComplexSelector.PseudoElement?
        if let name = parseTypeName() { compound.parts.append(.type(name)) }
        while index < text.count {
            let mark = text[index]
            if mark == "#" {
                index += 1
                guard let name = parseName(), pseudoElement == nil else { return nil }
                compound.parts.append(.id(name))
            } else if mark == "." {
                index += 1
                guard let name = parseIdentifier(), pseudoElement == nil else { return nil }
                compound.parts.append(.className(name))
            } else if mark == "[" {
                guard pseudoElement == nil, let attribute = parseAttribute() else { return nil }
                compound.parts.append(attribute)
            } else if mark == ":" {
                index += 1
                if index < text.count, text[index] == ":" {
                    index += 1
                    guard pseudoElement == nil, let name = parseIdentifier()?.lowercased(), let pseudo = parsePseudoElement(name) else { return nil }
                    pseudoElement = pseudo
                } else {
                    guard let name = parseIdentifier()?.lowercased() else { return nil }
                    if pseudoElement == nil, let legacy = Self.legacyPseudoElements[name] {
                        pseudoElement = legacy
                        continue
                    }
                    guard let pseudo = parsePseudoClass(name) else { return nil }
                    // After a pseudo-element only user-action states may follow; none of them match.
                    compound.parts.append(pseudoElement == nil ? pseudo : .never)
                }
            } else {
                break
            }
        }
        guard !compound.parts.isEmpty || pseudoElement != nil else { return nil }
        return (compound, pseudoElement)
    }

    private static let legacyPseudoElements: [String: ComplexSelector.PseudoElement] = [
        "before": .before, "after": .after, "first-line": .firstText, "first-letter": .firstText,
    ]

    private mutating func parsePseudoElement(_ name: String) -> ComplexSelector.PseudoElement? {
        if let legacy = Self.legacyPseudoElements[name] { return legacy }
        if name == "marker" { return .marker }
        if name.hasPrefix("-moz-") || name.hasPrefix("-ms-") || name.hasPrefix("-o-") { return nil }  // Chromium drops these rules
        if index < text.count, text[index] == "(" {  // ::part(), ::slotted(), ::highlight()...
            guard skipBalancedArgument() else { return nil }
        }
        return .other
    }

    private mutating func parsePseudoClass(_ name: String) -> SimpleSelector? {
        if index < text.count, text[index] == "(" {
            index += 1
            guard let selector = parseFunctionalPseudoClass(name) else { return nil }
            skipSpace()
            guard index < text.count, text[index] == ")" else { return nil }
            index += 1
            return selector
        }
        switch name {
        case "root", "scope": return .root
        case "empty": return .empty
        case "first-child": return .nth(.child, a: 0, b: 1, of: nil)
        case "last-child": return .nth(.lastChild, a: 0, b: 1, of: nil)
        case "only-child": return .matchesAny([Self.single(.nth(.child, a: 0, b: 1, of: nil), .nth(.lastChild, a: 0, b: 1, of: nil))], countsSpecificity: false)
        case "first-of-type": return .nth(.ofType, a: 0, b: 1, of: nil)
        case "last-of-type": return .nth(.lastOfType, a: 0, b: 1, of: nil)
        case "only-of-type": return .matchesAny([Self.single(.nth(.ofType, a: 0, b: 1, of: nil), .nth(.lastOfType, a: 0, b: 1, of: nil))], countsSpecificity: false)
        default:
            if let state = PseudoClassNames.states[name] { return .state(state) }
            return PseudoClassNames.dynamic.contains(name) ? .never : nil
        }
    }

    private static func single(_ parts: SimpleSelector...) -> ComplexSelector {
        ComplexSelector(compounds: [CompoundSelector(parts: parts)], combinators: [], pseudoElement: nil)
    }

    private mutating func parseFunctionalPseudoClass(_ name: String) -> SimpleSelector? {
        switch name {
        case "not": return parseList(forgiving: false).map { .not($0) }
        case "is", "matches", "-webkit-any": return parseList(forgiving: true).map { .matchesAny($0, countsSpecificity: true) }
        case "where": return parseList(forgiving: true).map { .matchesAny($0, countsSpecificity: false) }
        case "has": return parseRelativeList().map { .has($0) }
        case "nth-child", "nth-last-child", "nth-of-type", "nth-last-of-type":
            guard let (a, b) = parseNth() else { return nil }
            var of: [ComplexSelector]?
            if name.hasSuffix("child"), let word = peekIdentifier(), word.lowercased() == "of" {
                _ = parseIdentifier()
                guard let list = parseList(forgiving: false) else { return nil }
                of = list
            }
            let kind: SimpleSelector.NthKind = switch name {
            case "nth-child": .child
            case "nth-last-child": .lastChild
            case "nth-of-type": .ofType
            default: .lastOfType
            }
            return .nth(kind, a: a, b: b, of: of)
        case "lang":
            skipSpace()
            guard let value = parseIdentifier() ?? parseString() else { return nil }
            return .lang(value.lowercased())
        case "dir":
            skipSpace()
            guard let value = parseIdentifier() else { return nil }
            return value.lowercased() == "ltr" ? .state(.defined) : .never
        case "host", "host-context", "state": return skipBalancedInside() ? .never : nil
        default: return nil
        }
    }

    /// `An+B`, `odd`, `even`, `n`, `-n+3`, `+5`...
    private mutating func parseNth() -> (Int, Int)? {
        skipSpace()
        var raw = ""
        while index < text.count, text[index] != ")" {
            if Self.isSpace(text[index]) {  // `An+B of S`: stop before "of"
                var probe = index
                while probe < text.count, Self.isSpace(text[probe]) { probe += 1 }
                if probe + 2 < text.count, text[probe] == "o" || text[probe] == "O", text[probe + 1] == "f" || text[probe + 1] == "F",
                   Self.isSpace(text[probe + 2]) {
                    index = probe
                    break
                }
            }
            raw.unicodeScalars.append(text[index])
            index += 1
        }
        let value = raw.replacingOccurrences(of: " ", with: "").lowercased()
        if value == "odd" { return (2, 1) }
        if value == "even" { return (2, 0) }
        // Huge coefficients would overflow the matcher's arithmetic; no document has that many
        // siblings. A range check, not `abs`: abs(Int.min) traps, and "-9223372036854775808" is Int.min.
        let limit = -1_000_000...1_000_000
        guard let n = value.firstIndex(of: "n") else { return Int(value).flatMap { limit.contains($0) ? (0, $0) : nil } }
        let head = value[..<n]
        let a = head.isEmpty || head == "+" ? 1 : head == "-" ? -1 : Int(head)
        let tail = value[value.index(after: n)...]
        let b = tail.isEmpty ? 0 : Int(tail.hasPrefix("+") ? tail.dropFirst() : tail)
        guard let a, let b, limit.contains(a), limit.contains(b) else { return nil }
        return (a, b)
    }

    private mutating func parseAttribute() -> SimpleSelector? {
        index += 1
        skipSpace()
        guard var name = parseIdentifier() ?? (index < text.count && text[index] == "*" ? { index += 1; return "*" }() : nil) else { return nil }
        if index < text.count, text[index] == "|", index + 1 < text.count, text[index + 1] != "=" {  // a namespace prefix
            index += 1
            guard let local = parseIdentifier() else { return nil }
            name = local
        }
        skipSpace()
        guard index < text.count else { return nil }
        if text[index] == "]" {
            index += 1
            return .attribute(name: name.lowercased(), operator: .exists, value: "", ignoreCase: false)
        }
        let operators: [Unicode.Scalar: SimpleSelector.AttributeOperator] = ["~": .includes, "|": .dashMatch, "^": .prefix, "$": .suffix, "*": .substring]
        var op = SimpleSelector.AttributeOperator.equals
        if let found = operators[text[index]] {
            op = found
            index += 1
        }
        guard index < text.count, text[index] == "=" else { return nil }
        index += 1
        skipSpace()
        guard let value = parseString() ?? parseIdentifier() else { return nil }
        skipSpace()
        var ignoreCase = Self.caseInsensitiveAttributes.contains(name.lowercased())
        if let flag = peekIdentifier()?.lowercased(), flag == "i" || flag == "s" {
            _ = parseIdentifier()
            ignoreCase = flag == "i"
            skipSpace()
        }
        guard index < text.count, text[index] == "]" else { return nil }
        index += 1
        return .attribute(name: name.lowercased(), operator: op, value: value, ignoreCase: ignoreCase)
    }

    /// HTML attributes whose values selectors compare without case.
    private static let caseInsensitiveAttributes: Set<String> = ["type", "lang", "dir", "rel", "method", "media", "charset", "align", "valign", "scope", "shape", "target"]

    /// A type selector or `*`, with any namespace prefix (`svg|rect`, `*|*`) dropped.
    private mutating func parseTypeName() -> String? {
        let start = index
        var name: String?
        if index < text.count, text[index] == "*" {
            index += 1
            name = "*"
        } else {
            name = parseIdentifier()?.lowercased()
        }
        if index + 1 < text.count, text[index] == "|", text[index + 1] != "=" {
            index += 1
            if index < text.count, text[index] == "*" { index += 1; return "*" }
            guard let local = parseIdentifier() else { index = start; return nil }
            return local.lowercased()
        }
        return name
    }

    private func peekIdentifier() -> String? {
        var copy = self
        return copy.parseIdentifier()
    }

    /// An identifier with CSS escapes decoded; nil when none starts here.
    mutating func parseIdentifier() -> String? {
        guard index < text.count else { return nil }
        var probe = index
        if text[probe] == "-" { probe += 1 }
        if probe < text.count, text[probe] == "-" { probe += 1 }
        guard probe < text.count, Self.isNameStart(text[probe]) || text[probe] == "\\" || probe - index == 2 else { return nil }
        return parseName()
    }

    /// Name characters (what may follow `#`), escapes decoded.
    private mutating func parseName() -> String? {
        var result = String.UnicodeScalarView()
        while index < text.count {
            let scalar = text[index]
            if scalar == "\\" {
                guard let decoded = CSSEscapes.decode(text, &index) else { break }
                result.append(decoded)
            } else if Self.isNameStart(scalar) || ("0"..."9").contains(scalar) || scalar == "-" {
                result.append(scalar)
                index += 1
            } else {
                break
            }
        }
        return result.isEmpty ? nil : String(result)
    }

    private mutating func parseString() -> String? {
        guard index < text.count, text[index] == "\"" || text[index] == "'" else { return nil }
        let quote = text[index]
        index += 1
        var result = String.UnicodeScalarView()
        while index < text.count, text[index] != quote {
            if text[index] == "\\" {
                if index + 1 < text.count, text[index + 1] == "\n" { index += 2; continue }
                guard let decoded = CSSEscapes.decode(text, &index) else { break }
                result.append(decoded)
            } else {
                result.append(text[index])
                index += 1
            }
        }
        guard index < text.count else { return nil }
        index += 1
        return String(result)
    }

    private mutating func skipBalancedArgument() -> Bool {
        index += 1
        return skipBalancedInside() && { index += 1; return true }()
    }

    /// Skips to the `)` closing the current argument (not past it).
    private mutating func skipBalancedInside() -> Bool {
        var depth = 0
        while index < text.count {
            switch text[index] {
            case "(": depth += 1
            case ")":
                if depth == 0 { return true }
                depth -= 1
            default: break
            }
            index += 1
        }
        return false
    }

    /// After a list member: at `,`, `)` or the end.
    private mutating func peekListEnd() -> Bool {
        skipSpace()
        return index >= text.count || text[index] == "," || text[index] == ")"
    }

    /// Skips an invalid member of a forgiving list, up to its `,` or the list's `)`.
    private mutating func skipToListEnd() {
        var depth = 0
        while index < text.count {
            let scalar = text[index]
            if scalar == "(" || scalar == "[" { depth += 1 }
            if scalar == ")" || scalar == "]" {
                if depth == 0 { return }
                depth -= 1
            }
            if scalar == ",", depth == 0 { return }
            index += 1
        }
    }

    @discardableResult
    private mutating func skipSpace() -> Bool {
        let start = index
        while index < text.count, Self.isSpace(text[index]) { index += 1 }
        return index > start
    }

    private static func combinator(_ scalar: Unicode.Scalar) -> ComplexSelector.Combinator? {
        switch scalar {
        case ">": .child
        case "+": .nextSibling
        case "~": .subsequentSibling
        default: nil
        }
    }

    static func isSpace(_ scalar: Unicode.Scalar) -> Bool { scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar == "\u{0C}" }

    static func isNameStart(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || scalar == "_" || scalar.value >= 0x80
    }
}
