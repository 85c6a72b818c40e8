/// A URI reference split into its RFC 3986 parts, as text, and resolved against a base (section
/// 5.2) the same way: what a crawler does with every link of every page, without building a
/// Foundation `URL` (and parsing it again) for each. The fragment is dropped on the way in.
struct URLReference {
    var scheme: Substring?
    /// What follows "//", up to the path: [userinfo@]host[:port].
    var authority: Substring?
    var path: Substring
    var query: Substring?

    /// Splits `text` (an href as written: ASCII spaces at either end and tabs or line breaks
    /// inside are ignored, as browsers ignore them).
    init(_ text: String) {
        var rest = Substring(Self.withoutIgnoredWhitespace(text))
        if let hash = rest.utf8.firstIndex(of: UInt8(ascii: "#")) { rest = rest[..<hash] }
        if let colon = rest.utf8.firstIndex(of: UInt8(ascii: ":")), Self.isScheme(rest[..<colon]) {
            scheme = rest[..<colon]
            rest = rest[rest.index(after: colon)...]
        }
        if rest.utf8.starts(with: "//".utf8) {
            let afterSlashes = rest.dropFirst(2)
            let end = afterSlashes.utf8.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? afterSlashes.endIndex
            authority = afterSlashes[..<end]
            rest = afterSlashes[end...]
        }
        if let question = rest.utf8.firstIndex(of: UInt8(ascii: "?")) {
            path = rest[..<question]
            query = rest[rest.index(after: question)...]
        } else {
            path = rest
        }
    }

    /// This reference resolved against `base` (which has a scheme): RFC 3986 section 5.2.2.
    func resolved(against base: URLReference) -> URLReference {
        if scheme != nil { return withPath(Substring(URLCanonicalizer.removingDotSegments(String(path)))) }
        var target = base
        if authority != nil {
            target.authority = authority
            target.path = Substring(URLCanonicalizer.removingDotSegments(String(path)))
            target.query = query
        } else if path.isEmpty {
            if query != nil { target.query = query }
        } else if path.utf8.first == UInt8(ascii: "/") {
            target.path = Substring(URLCanonicalizer.removingDotSegments(String(path)))
            target.query = query
        } else {
            target.path = Substring(URLCanonicalizer.removingDotSegments(base.merged(with: path)))
            target.query = query
        }
        return target
    }

    /// Section 5.2.3: `relative` after the last "/" of this (base) path.
    private func merged(with relative: Substring) -> String {
        if authority != nil && path.isEmpty { return "/" + relative }
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return String(relative) }
        return String(path[...slash]) + relative
    }

    private func withPath(_ newPath: Substring) -> URLReference {
        var copy = self
        copy.path = newPath
        return copy
    }

    /// scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
    private static func isScheme(_ text: Substring) -> Bool {
        guard let first = text.utf8.first, isLetter(first) else { return false }
        return text.utf8.allSatisfy { isLetter($0) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "+")
            || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }

    /// `text` without ASCII whitespace at either end and without tabs and line breaks inside.
    private static func withoutIgnoredWhitespace(_ text: String) -> String {
        let bytes = text.utf8
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else { return "" }
        let trimmed = bytes[first...last]
        guard trimmed.contains(where: { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) else { return String(Substring(trimmed)) }
        return String(decoding: trimmed.filter { $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }, as: UTF8.self)
    }
}
