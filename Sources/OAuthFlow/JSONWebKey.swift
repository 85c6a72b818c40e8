import Foundation

/// A public key from a JWK Set (RFC 7517): RSA, EC P-256 or Ed25519 (OKP), as the DER
/// SubjectPublicKeyInfo OpenSSL reads.
public struct JSONWebKey: Sendable, Equatable {
    public let kid: String?
    public let keyType: String
    /// The algorithm the key is for, when the JWK says.
    public let algorithm: String?
    let subjectPublicKeyInfo: Data

    /// Reads one JWK; nil for key types or curves it does not support, or bad members.
    public init?(_ jwk: JSONValue) {
        guard let keyType = jwk["kty"]?.string else { return nil }
        func bytes(_ member: String) -> Data? { jwk[member]?.string.flatMap(Base64URL.decode) }
        switch keyType {
        case "RSA":
            guard let modulus = bytes("n"), let exponent = bytes("e"), !modulus.isEmpty, !exponent.isEmpty else { return nil }
            let rsaKey = DEREncoder.sequence([DEREncoder.unsignedInteger(modulus), DEREncoder.unsignedInteger(exponent)])
            subjectPublicKeyInfo = DEREncoder.sequence([DEREncoder.sequence([DEREncoder.rsaEncryption, DEREncoder.null]),
                                                        DEREncoder.bitString(rsaKey)])
        case "EC":
            guard jwk["crv"]?.string == "P-256", let x = bytes("x"), let y = bytes("y"), x.count == 32, y.count == 32 else { return nil }
            subjectPublicKeyInfo = DEREncoder.sequence([DEREncoder.sequence([DEREncoder.ecPublicKey, DEREncoder.prime256v1]),
                                                        DEREncoder.bitString(Data([0x04]) + x + y)])
        case "OKP":
            guard jwk["crv"]?.string == "Ed25519", let x = bytes("x"), x.count == 32 else { return nil }
            subjectPublicKeyInfo = DEREncoder.sequence([DEREncoder.sequence([DEREncoder.ed25519]), DEREncoder.bitString(x)])
        default:
            return nil
        }
        self.keyType = keyType
        kid = jwk["kid"]?.string
        algorithm = jwk["alg"]?.string
    }

    /// Whether this key can check a signature made with `alg`.
    func fits(_ alg: String) -> Bool {
        if let algorithm, algorithm != alg { return false }
        switch alg {
        case "RS256": return keyType == "RSA"
        case "ES256": return keyType == "EC"
        case "EdDSA": return keyType == "OKP"
        default: return false
        }
    }
}

/// A provider's JWK Set: the keys its signatures are checked against, chosen by `kid`.
public struct JSONWebKeySet: Sendable {
    public let keys: [JSONWebKey]

    public init(keys: [JSONWebKey]) { self.keys = keys }

    /// Reads `{"keys": [...]}`, skipping keys it cannot use.
    public init?(json: Data) {
        guard let keys = JSONValue.parse(json)?["keys"]?.array else { return nil }
        self.keys = keys.compactMap(JSONWebKey.init)
    }

    /// The keys that may have signed a token with this `kid` and `alg`: the one with that kid,
    /// or, without a kid, every key of the algorithm's type.
    func candidates(kid: String?, alg: String) -> [JSONWebKey] {
        let fitting = keys.filter { $0.fits(alg) }
        guard let kid else { return fitting }
        return fitting.filter { $0.kid == kid }
    }
}
