/// One token's issuance (RFC 9578 §5 and §6) from the client's side: `request` builds the
/// TokenRequest for a challenge and keeps what finalization needs; `finish` turns the issuer's
/// TokenResponse into the Token to redeem. The issuer's key comes from the challenge's token-key
/// or the issuer directory; nothing here touches the network or outlives the token.
package struct TokenIssuance: Sendable {
    package let tokenType: TokenType
    /// The serialized token key: an RSASSA-PSS SPKI (0x0002) or a compressed P-384 element (0x0001).
    package let tokenKey: [UInt8]
    /// SHA-256 of the token key.
    package let tokenKeyID: [UInt8]
    private let rsaKey: BlindRSAPublicKey?

    package init(tokenType: TokenType, tokenKey: [UInt8]) throws {
        self.tokenType = tokenType
        self.tokenKey = tokenKey
        tokenKeyID = SHA.sha256(tokenKey)
        switch tokenType {
        case .publicRSA2048:
            let key = try RSAPSSTokenKey.decode(tokenKey)
            guard key.modulusLength == 256 else { throw PrivacyPassError.malformedKey("token type 0x0002 needs a 2048-bit key") }
            rsaKey = key
        case .privateP384:
            _ = try P384Group().deserialize(tokenKey)
            rsaKey = nil
        }
    }

    /// A request in flight: the TokenRequest to send and the secrets to finish it with.
    package struct Pending: Sendable {
        package let request: TokenRequest
        let nonce: [UInt8]
        let challengeDigest: [UInt8]
        fileprivate let rsaBlinding: BlindRSAPublicKey.Blinding?
        fileprivate let voprfBlinding: VOPRFP384.Blinding?
    }

    /// The TokenRequest for `challenge` (its type must be this issuance's); `nonce`, `salt` and
    /// `blind` are random unless given (tests pass the RFC's).
    package func request(for challenge: TokenChallenge, nonce: [UInt8]? = nil, salt: [UInt8]? = nil, blind: [UInt8]? = nil) throws -> Pending {
        guard challenge.tokenType == tokenType.rawValue else {
            throw PrivacyPassError.malformedChallenge("the challenge is for token type \(challenge.tokenType), the key for \(tokenType.rawValue)")
        }
        guard let nonce = nonce ?? SecureBytes.random(32), nonce.count == 32 else { throw PrivacyPassError.cryptoFailure("no 32-byte nonce") }
        let digest = challenge.digest
        let input = Token.authenticatorInput(tokenType: tokenType.rawValue, nonce: nonce, challengeDigest: digest, tokenKeyID: tokenKeyID)
        let truncated = tokenKeyID[tokenKeyID.count - 1]
        if let rsaKey {
            let blinding = try rsaKey.blind(input, salt: salt, blind: blind)
            let request = TokenRequest(tokenType: tokenType, truncatedTokenKeyID: truncated, blindedMessage: blinding.blindedMessage)
            return Pending(request: request, nonce: nonce, challengeDigest: digest, rsaBlinding: blinding, voprfBlinding: nil)
        }
        let blinding = try VOPRFP384.blind(input, blind: blind)
        let request = TokenRequest(tokenType: tokenType, truncatedTokenKeyID: truncated, blindedMessage: blinding.blindedElement)
        return Pending(request: request, nonce: nonce, challengeDigest: digest, rsaBlinding: nil, voprfBlinding: blinding)
    }

    /// The Token from the issuer's TokenResponse body; throws unless it verifies.
    package func finish(_ pending: Pending, response: [UInt8]) throws -> Token {
        guard response.count == tokenType.responseLength else {
            throw PrivacyPassError.malformedMessage("the TokenResponse has \(response.count) bytes, not \(tokenType.responseLength)")
        }
        let authenticator: [UInt8]
        if let rsaKey, let blinding = pending.rsaBlinding {
            authenticator = try rsaKey.finalize(response, blinding: blinding)
        } else if let blinding = pending.voprfBlinding {
            authenticator = try VOPRFP384.finalize(blinding, evaluatedElement: Array(response.prefix(P384Group.elementLength)),
                                                   proof: Array(response.dropFirst(P384Group.elementLength)), publicKey: tokenKey)
        } else {
            throw PrivacyPassError.malformedMessage("the pending request is of another token type")
        }
        return Token(tokenType: tokenType.rawValue, nonce: pending.nonce, challengeDigest: pending.challengeDigest,
                     tokenKeyID: tokenKeyID, authenticator: authenticator)
    }
}

extension TokenIssuance {
    /// The token key of an RSA public key for type 0x0002 (the SPKI RFC 9578 §6.5 prescribes).
    package static func tokenKey(for key: BlindRSAPublicKey) -> [UInt8] { RSAPSSTokenKey.encode(key) }

    /// Checks a type 0x0002 token against its token key: RSASSA-PSS over the authenticator input.
    package static func verifyPublicToken(_ token: Token, tokenKey: [UInt8]) throws -> Bool {
        guard token.tokenType == TokenType.publicRSA2048.rawValue, token.tokenKeyID == SHA.sha256(tokenKey) else { return false }
        return try RSAPSSTokenKey.decode(tokenKey).verify(signature: token.authenticator, message: token.authenticatorInput)
    }
}
