/// The challenges of a `WWW-Authenticate` or `Proxy-Authenticate` value (RFC 9110 §11.6.1):
/// `scheme [ token68 / #auth-param ]`, comma-separated, several per value. A parameter is told
/// from the next scheme by the `=` after its name. Scheme and parameter names are case-folded;
/// quoted-string escapes are undone. A state machine over the bytes with no I/O.
package struct AuthenticationChallenge: Hashable, Sendable {
    /// The scheme, lower-cased (`privatetoken`, `basic`).
    package var scheme: String
    package var token68: String?
    /// Parameters by lower-cased name; a repeated name keeps its first value.
    package var parameters: [String: String]

    /// Every challenge in `value`; throws on a value that does not follow the grammar (an
    /// unterminated quote, a parameter before any scheme, stray characters).
    package static func parse(_ value: String) throws -> [AuthenticationChallenge] {
        var scanner = Scanner(Array(value.utf8))
        var challenges: [AuthenticationChallenge] = []
        while true {
            scanner.skip(while: { $0 == UInt8(ascii: ",") || isWhitespace($0) })
            if scanner.isAtEnd { return challenges }
            let name = scanner.take(while: isTokenCharacter)
            guard !name.isEmpty else { throw PrivacyPassError.malformedChallenge("unexpected character at offset \(scanner.offset)") }
            let afterName = scanner.offset
            scanner.skip(while: isWhitespace)
            if scanner.peek == UInt8(ascii: "="), !challenges.isEmpty, challenges[challenges.count - 1].token68 == nil {
                scanner.advance()
                scanner.skip(while: isWhitespace)
                let value = try scanner.parameterValue()
                let key = String(decoding: name, as: UTF8.self).lowercased()
                if challenges[challenges.count - 1].parameters[key] == nil { challenges[challenges.count - 1].parameters[key] = value }
                try scanner.expectListSeparator()
                continue
            }
            guard scanner.peek != UInt8(ascii: "=") else { throw PrivacyPassError.malformedChallenge("a parameter comes before any scheme or after a token68") }
            scanner.offset = afterName
            var challenge = AuthenticationChallenge(scheme: String(decoding: name, as: UTF8.self).lowercased(), token68: nil, parameters: [:])
            let spaces = scanner.take(while: isWhitespace)
            if !spaces.isEmpty, let token68 = scanner.token68() { challenge.token68 = token68 }
            challenges.append(challenge)
            if challenge.token68 != nil { try scanner.expectListSeparator() }
        }
    }

    static func isWhitespace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }

    /// tchar of RFC 9110 §5.6.2.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        default: return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    struct Scanner {
        let bytes: [UInt8]
        var offset = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var isAtEnd: Bool { offset >= bytes.count }
        var peek: UInt8? { isAtEnd ? nil : bytes[offset] }
        mutating func advance() { offset += 1 }

        mutating func skip(while predicate: (UInt8) -> Bool) { _ = take(while: predicate) }

        mutating func take(while predicate: (UInt8) -> Bool) -> ArraySlice<UInt8> {
            let start = offset
            while let byte = peek, predicate(byte) { offset += 1 }
            return bytes[start..<offset]
        }

        /// A token68 that runs to the end of its list element, or nil (and nothing consumed).
        mutating func token68() -> String? {
            let start = offset
            let body = take { isTokenCharacter($0) || $0 == UInt8(ascii: "/") }
            _ = take { $0 == UInt8(ascii: "=") }
            let end = offset
            skip(while: AuthenticationChallenge.isWhitespace)
            if !body.isEmpty, isAtEnd || peek == UInt8(ascii: ",") {
                return String(decoding: bytes[start..<end], as: UTF8.self)
            }
            offset = start
            return nil
        }

        /// token / quoted-string.
        mutating func parameterValue() throws -> String {
            guard peek == UInt8(ascii: "\"") else {
                let token = take(while: AuthenticationChallenge.isTokenCharacter)
                guard !token.isEmpty else { throw PrivacyPassError.malformedChallenge("a parameter has no value") }
                return String(decoding: token, as: UTF8.self)
            }
            advance()
            var value: [UInt8] = []
            while let byte = peek {
                advance()
                if byte == UInt8(ascii: "\"") { return String(decoding: value, as: UTF8.self) }
                if byte == UInt8(ascii: "\\") {
                    guard let escaped = peek else { break }
                    advance()
                    value.append(escaped)
                } else {
                    value.append(byte)
                }
            }
            throw PrivacyPassError.malformedChallenge("a quoted string is not terminated")
        }

        /// After a list element: whitespace, then a comma or the end.
        mutating func expectListSeparator() throws {
            skip(while: AuthenticationChallenge.isWhitespace)
            guard isAtEnd || peek == UInt8(ascii: ",") else {
                throw PrivacyPassError.malformedChallenge("unexpected character at offset \(offset)")
            }
        }
    }
}
