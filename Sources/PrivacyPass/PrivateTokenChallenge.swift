/// One `PrivateToken` challenge (RFC 9577 §2.1) from a relay's 407 (`Proxy-Authenticate`) or an
/// origin's 401 (`WWW-Authenticate`): the decoded TokenChallenge, its exact bytes (the digest is
/// over those), the token key if sent, and how long the challenge may be answered.
package struct PrivateTokenChallenge: Hashable, Sendable {
    package var challenge: TokenChallenge
    package var challengeBytes: [UInt8]
    package var tokenKey: [UInt8]?
    package var maxAge: Int?

    /// The supported `PrivateToken` challenges in the header values, in order. Other schemes and
    /// token types this module does not issue are skipped, as RFC 9577 requires; a PrivateToken
    /// challenge of a supported type that is malformed throws.
    package static func parse(headerValues: [String]) throws -> [PrivateTokenChallenge] {
        var found: [PrivateTokenChallenge] = []
        for value in headerValues {
            for challenge in try AuthenticationChallenge.parse(value) where challenge.scheme == "privatetoken" {
                guard let encoded = challenge.parameters["challenge"] else {
                    throw PrivacyPassError.malformedChallenge("a PrivateToken challenge has no challenge parameter")
                }
                guard let bytes = Base64URL.decode(encoded) else { throw PrivacyPassError.malformedChallenge("the challenge is not base64url") }
                guard bytes.count >= 2, TokenType(rawValue: UInt16(bytes[0]) << 8 | UInt16(bytes[1])) != nil else { continue }
                var tokenKey: [UInt8]?
                if let key = challenge.parameters["token-key"] {
                    guard let decoded = Base64URL.decode(key) else { throw PrivacyPassError.malformedChallenge("the token-key is not base64url") }
                    tokenKey = decoded
                }
                let maxAge = challenge.parameters["max-age"].flatMap { Int($0) }.flatMap { $0 >= 0 ? $0 : nil }
                found.append(PrivateTokenChallenge(challenge: try TokenChallenge(parsing: bytes), challengeBytes: bytes,
                                                   tokenKey: tokenKey, maxAge: maxAge))
            }
        }
        return found
    }

    /// The header value answering a challenge: `PrivateToken token="..."` (base64url, padded).
    package static func credential(for token: Token) -> String {
        "PrivateToken token=\"\(Base64URL.encode(token.serialized()))\""
    }

    /// The header value a relay or origin sends (for the loopback servers and round-trip tests).
    package func headerValue() -> String {
        var value = "PrivateToken challenge=\"\(Base64URL.encode(challengeBytes))\""
        if let tokenKey { value += ", token-key=\"\(Base64URL.encode(tokenKey))\"" }
        if let maxAge { value += ", max-age=\"\(maxAge)\"" }
        return value
    }
}
