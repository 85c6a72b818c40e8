import Foundation

/// A gateway's key: the private key behind one key configuration.
public struct OHTTPGatewayKey: Sendable {
    /// The configuration clients use; publish it with `OHTTPKeyConfig.serializeList`.
    public let keyConfig: OHTTPKeyConfig
    let privateKey: HPKE.PrivateKey

    /// The KDF and AEAD pairs a new key offers unless told otherwise, as in RFC 9458 Appendix A.
    public static let defaultAlgorithms = [OHTTPKeyConfig.SymmetricAlgorithm(kdf: .hkdfSHA256, aead: .aes128GCM),
                                           OHTTPKeyConfig.SymmetricAlgorithm(kdf: .hkdfSHA256, aead: .chaCha20Poly1305)]

    /// The key with identifier `keyID`; throws `.invalidKeyConfiguration` for an empty `algorithms`.
    public init(keyID: UInt8, privateKey: HPKE.PrivateKey,
                algorithms: [OHTTPKeyConfig.SymmetricAlgorithm] = defaultAlgorithms) throws(ObliviousHTTPError) {
        keyConfig = try OHTTPKeyConfig(keyID: keyID, kem: privateKey.kem, publicKey: privateKey.publicKey, algorithms: algorithms)
        self.privateKey = privateKey
    }

    /// A key with a fresh random private key.
    public static func generate(keyID: UInt8, kem: HPKE.KEM = .x25519HKDFSHA256,
                                algorithms: [OHTTPKeyConfig.SymmetricAlgorithm] = defaultAlgorithms) throws(ObliviousHTTPError) -> OHTTPGatewayKey {
        try OHTTPGatewayKey(keyID: keyID, privateKey: HPKE.PrivateKey.generate(kem: kem), algorithms: algorithms)
    }
}
