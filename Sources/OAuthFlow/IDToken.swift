import Foundation
import CryptoPrimitives

/// A verified OpenID Connect ID token: its claims after every check passed.
public struct IDToken: Sendable {
    public let claims: JSONValue
    public let raw: String

    public var subject: String? { claims["sub"]?.string }
    public var issuer: String? { claims["iss"]?.string }
    public var audiences: [String] { IDTokenValidator.audiences(claims) }
    public var nonce: String? { claims["nonce"]?.string }
}

/// The checks OpenID Connect Core §3.1.3.7 asks of a client, each failing with its own
/// `IDTokenCheck`: signature against the JWKS, `iss`, `aud`, `azp`, `exp`, `iat`, `nonce`, and
/// `at_hash`/`c_hash` when present.
public struct IDTokenValidator: Sendable {
    public var issuer: String
    public var clientID: String
    public var keys: JSONWebKeySet
    /// Seconds of clock difference tolerated for `exp` and `iat`.
    public var leeway: Double = 60
    /// How old `iat` may be.
    public var maximumAge: Double = 600

    public init(issuer: String, clientID: String, keys: JSONWebKeySet) {
        self.issuer = issuer
        self.clientID = clientID
        self.keys = keys
    }

    /// Verifies `compact` and returns its claims; `nonce` nil skips the nonce check (refresh).
    public func validate(_ compact: String, nonce: String?, accessToken: String? = nil, code: String? = nil,
                         now: Date = Date()) throws(OAuthError) -> IDToken {
        let jws = try JSONWebSignature(compact: compact)
        try jws.verify(with: keys)
        guard let claims = JSONValue.parse(jws.payload), claims.object != nil else {
            throw OAuthError(.idToken(.malformed("the payload is not a JSON object")))
        }
        func fail(_ check: IDTokenCheck) -> OAuthError { OAuthError(.idToken(check)) }
        guard claims["iss"]?.string == issuer else { throw fail(.issuer(expected: issuer, actual: claims["iss"]?.string)) }
        let audiences = Self.audiences(claims)
        guard audiences.contains(clientID) else { throw fail(.audience(expected: clientID, actual: audiences)) }
        if audiences.count > 1 || claims["azp"] != nil, claims["azp"]?.string != clientID {
            throw fail(.authorizedParty(claims["azp"]?.string))
        }
        let time = now.timeIntervalSince1970
        guard let exp = claims["exp"]?.number else { throw fail(.malformed("no exp")) }
        guard time <= exp + leeway else { throw fail(.expired(expiredAt: exp, now: time)) }
        guard let iat = claims["iat"]?.number else { throw fail(.issuedAt("is missing")) }
        guard iat <= time + leeway else { throw fail(.issuedAt("is in the future")) }
        guard time - iat <= maximumAge else { throw fail(.issuedAt("is more than \(Int(maximumAge)) s old")) }
        if let nonce, claims["nonce"]?.string != nonce { throw fail(.nonce) }
        let alg = jws.algorithm ?? ""
        if let atHash = claims["at_hash"]?.string, let accessToken, atHash != Self.halfHash(accessToken, alg: alg) {
            throw fail(.accessTokenHash)
        }
        if let cHash = claims["c_hash"]?.string, let code, cHash != Self.halfHash(code, alg: alg) { throw fail(.codeHash) }
        return IDToken(claims: claims, raw: compact)
    }

    /// Verifies an ID token issued on refresh as `validate` does (without a nonce), then that it
    /// names the same `iss`, `sub`, audiences and `azp` as `original` (an `azp` only when the
    /// original had one), as OIDC Core §12.2 asks. `auth_time` is not compared, though §12.2
    /// asks that too: django-oauth-toolkit puts the user's latest login there, so any other
    /// sign-in of the same user between the two tokens would fail an honest refresh.
    public func validateRefreshed(_ compact: String, original: IDToken, accessToken: String? = nil,
                                  now: Date = Date()) throws(OAuthError) -> IDToken {
        let refreshed = try validate(compact, nonce: nil, accessToken: accessToken, now: now)
        func same(_ claim: String) throws(OAuthError) {
            guard refreshed.claims[claim] == original.claims[claim] else { throw OAuthError(.idToken(.changedOnRefresh(claim: claim))) }
        }
        try same("iss")
        try same("sub")
        guard Set(refreshed.audiences) == Set(original.audiences), !refreshed.audiences.isEmpty else {
            throw OAuthError(.idToken(.changedOnRefresh(claim: "aud")))
        }
        try same("azp")
        return refreshed
    }

    static func audiences(_ claims: JSONValue) -> [String] {
        if let single = claims["aud"]?.string { return [single] }
        return claims["aud"]?.array?.compactMap(\.string) ?? []
    }

    /// base64url of the left half of the hash the signing algorithm uses (SHA-512 for Ed25519).
    static func halfHash(_ value: String, alg: String) -> String {
        let digest = Data(Digest.of(Data(value.utf8), alg == "EdDSA" ? .sha512 : .sha256))
        return Base64URL.encode(digest.prefix(digest.count / 2))
    }
}
