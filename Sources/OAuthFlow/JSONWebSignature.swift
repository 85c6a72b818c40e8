import Foundation

/// A JWS in compact serialization (RFC 7515): header, payload and signature, with the signing
/// input kept byte for byte.
public struct JSONWebSignature: Sendable {
    public let header: JSONValue
    public let payload: Data
    public let signature: Data
    let signingInput: Data

    /// Splits and decodes `compact`; throws `malformed` naming the part that is wrong.
    public init(compact: String) throws(OAuthError) {
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3 else { throw OAuthError(.idToken(.malformed("\(parts.count) parts, not 3"))) }
        guard let headerData = Base64URL.decode(parts[0]), let header = JSONValue.parse(headerData), header.object != nil else {
            throw OAuthError(.idToken(.malformed("the header is not base64url JSON")))
        }
        guard let payload = Base64URL.decode(parts[1]) else { throw OAuthError(.idToken(.malformed("the payload is not base64url"))) }
        guard let signature = Base64URL.decode(parts[2]) else { throw OAuthError(.idToken(.malformed("the signature is not base64url"))) }
        self.header = header
        self.payload = payload
        self.signature = signature
        signingInput = Data((parts[0] + "." + parts[1]).utf8)
    }

    public var algorithm: String? { header["alg"]?.string }
    public var keyID: String? { header["kid"]?.string }

    /// Checks the signature with the key set's key for the header's `kid` and `alg` (RS256,
    /// ES256 or EdDSA; `none` and HMAC are refused).
    public func verify(with keys: JSONWebKeySet) throws(OAuthError) {
        guard let alg = algorithm, let algorithm = SignatureVerifier.Algorithm(rawValue: alg) else {
            throw OAuthError(.idToken(.unsupportedAlgorithm(self.algorithm ?? "(none)")))
        }
        let candidates = keys.candidates(kid: keyID, alg: alg)
        guard !candidates.isEmpty else { throw OAuthError(.idToken(.unknownKey(kid: keyID))) }
        guard candidates.contains(where: {
            SignatureVerifier.verify(algorithm, publicKey: $0.subjectPublicKeyInfo, message: signingInput, signature: signature)
        }) else { throw OAuthError(.idToken(.signature)) }
    }
}
