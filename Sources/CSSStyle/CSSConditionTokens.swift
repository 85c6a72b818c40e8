/// The words and parenthesized groups of a media query or `@supports` condition, and the
/// `not` / `and` / `or` logic over them (three-valued: nil is "unknown", which counts as false).
struct CSSConditionTokens {
    enum Token {
        case word(String)
        /// The text inside `( )`.
        case group(String)
        /// `name( )`, such as `selector(...)` or `font-format(...)`.
        case function(String, String)
    }

    private var tokens: [Token] = []
    private var position = 0

    init(_ text: String) {
        let scalars = Array(text.unicodeScalars)
        var index = 0
        var word = String.UnicodeScalarView()
        func flushWord() {
            if !word.isEmpty { tokens.append(.word(String(word).lowercased())) }
            word.removeAll()
        }
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "(" {
                let name = String(word).lowercased()
                word.removeAll()
                let start = index + 1
                var depth = 1
                index += 1
                while index < scalars.count, depth > 0 {
                    if scalars[index] == "(" { depth += 1 }
                    if scalars[index] == ")" { depth -= 1 }
                    index += 1
                }
                let end = depth == 0 ? index - 1 : index
                let inner = String(String.UnicodeScalarView(scalars[start..<end]))
                tokens.append(name.isEmpty ? .group(inner) : .function(name, inner))
                continue
            }
            if SelectorParser.isSpace(scalar) { flushWord() } else { word.append(scalar) }
            index += 1
        }
        flushWord()
    }

    var isAtEnd: Bool { position >= tokens.count }
    var startsWithGroup: Bool { if case .group = tokens.first { true } else { false } }

    func peekWord() -> String? {
        guard position < tokens.count, case .word(let word) = tokens[position] else { return nil }
        return word
    }

    @discardableResult
    mutating func next() -> Token? {
        guard position < tokens.count else { return nil }
        defer { position += 1 }
        return tokens[position]
    }

    mutating func nextWord() -> String? {
        guard let word = peekWord() else { return nil }
        position += 1
        return word
    }

    /// `not X` or `X (and X)*` or `X (or X)*`, each X evaluated by `leaf`.
    static func evaluate(_ tokens: inout CSSConditionTokens, _ leaf: (Token) -> Bool?) -> Bool? {
        if tokens.peekWord() == "not" {
            tokens.next()
            guard let operand = tokens.next() else { return nil }
            return leaf(operand).map { !$0 }
        }
        guard let first = tokens.next() else { return nil }
        var result = leaf(first)
        while let joiner = tokens.peekWord(), joiner == "and" || joiner == "or" {
            tokens.next()
            guard let operand = tokens.next() else { return nil }
            let value = leaf(operand)
            if joiner == "and" {
                result = result == false || value == false ? false : (result == nil || value == nil ? nil : true)
            } else {
                result = result == true || value == true ? true : (result == nil || value == nil ? nil : false)
            }
        }
        return result
    }
}
