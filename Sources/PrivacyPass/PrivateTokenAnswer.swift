/// How a client answers a relay's 407 (or an origin's 401) with Privacy Pass: pick the first
/// challenge of a type this module issues, take its token key (refusing one that contradicts the
/// issuer's published key, which would let a relay tag this client with a key of its own), run
/// one issuance through `issue` and return the credential. The token exists only in the returned
/// value: nothing is cached, so each tunnel (each challenge) gets a token of its own.
package enum PrivateTokenAnswer {
    /// The `PrivateToken token=...` value, or nil when no challenge can be answered.
    /// - Parameters:
    ///   - issuerKeys: token keys the issuer published (its directory), by type; empty: trust the
    ///     challenge's `token-key`.
    ///   - issue: sends the TokenRequest to the issuer (through the relay chain) and returns the
    ///     TokenResponse body; its errors are passed on.
    package static func credential(headerValues: [String], issuerKeys: [TokenType: [UInt8]] = [:],
                                   issue: (TokenRequest) throws -> [UInt8]) throws -> String? {
        for offered in try PrivateTokenChallenge.parse(headerValues: headerValues) {
            guard let type = TokenType(rawValue: offered.challenge.tokenType) else { continue }
            let published = issuerKeys[type]
            guard let key = offered.tokenKey ?? published else { continue }
            if let published, published != key {
                throw PrivacyPassError.malformedChallenge("the challenge's token-key is not the issuer's published key")
            }
            let issuance = try TokenIssuance(tokenType: type, tokenKey: key)
            let pending = try issuance.request(for: offered.challenge)
            return PrivateTokenChallenge.credential(for: try issuance.finish(pending, response: try issue(pending.request)))
        }
        return nil
    }
}
