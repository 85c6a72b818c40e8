import WireFormat

/// The Token of RFC 9577 §2.2: what a client redeems. The authenticator covers the other four
/// fields (`authenticatorInput`), which are also the issuance protocol's token_input.
package struct Token: Hashable, Sendable {
    package var tokenType: UInt16
    package var nonce: [UInt8]
    package var challengeDigest: [UInt8]
    package var tokenKeyID: [UInt8]
    package var authenticator: [UInt8]

    package init(tokenType: UInt16, nonce: [UInt8], challengeDigest: [UInt8], tokenKeyID: [UInt8], authenticator: [UInt8]) {
        self.tokenType = tokenType
        self.nonce = nonce
        self.challengeDigest = challengeDigest
        self.tokenKeyID = tokenKeyID
        self.authenticator = authenticator
    }

    /// Reads a token of a type this module knows (the authenticator's length depends on it).
    package init(parsing bytes: [UInt8]) throws {
        var reader = WireReader(bytes)
        do {
            tokenType = try reader.u16()
            guard let type = TokenType(rawValue: tokenType) else { throw PrivacyPassError.unsupportedTokenType(tokenType) }
            nonce = Array(try reader.take(32))
            challengeDigest = Array(try reader.take(32))
            tokenKeyID = Array(try reader.take(32))
            authenticator = Array(try reader.take(type.authenticatorLength))
        } catch let error as PrivacyPassError {
            throw error
        } catch {
            throw PrivacyPassError.malformedMessage("the Token is truncated")
        }
        guard reader.isAtEnd else { throw PrivacyPassError.malformedMessage("bytes follow the Token") }
    }

    /// token_type || nonce || challenge_digest || token_key_id.
    package var authenticatorInput: [UInt8] {
        Self.authenticatorInput(tokenType: tokenType, nonce: nonce, challengeDigest: challengeDigest, tokenKeyID: tokenKeyID)
    }

    package static func authenticatorInput(tokenType: UInt16, nonce: [UInt8], challengeDigest: [UInt8], tokenKeyID: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.appendBigEndian(tokenType)
        return out + nonce + challengeDigest + tokenKeyID
    }

    package func serialized() -> [UInt8] { authenticatorInput + authenticator }
}
