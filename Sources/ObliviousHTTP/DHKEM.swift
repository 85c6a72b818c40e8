import WireFormat

/// DHKEM(X25519, HKDF-SHA256) (RFC 9180 Section 4.1 and 7.1): encapsulation, decapsulation and
/// DeriveKeyPair.
enum DHKEM {
    private static let kem = HPKE.KEM.x25519HKDFSHA256
    /// suite_id = "KEM" || I2OSP(kem_id, 2).
    private static let labeled = HPKELabeledKDF(kdf: kem.kdf, suiteID: Array("KEM".utf8) + kem.rawValue.bigEndianBytes)

    /// Encap(pkR) with the given ephemeral key: (shared_secret, enc).
    static func encapsulate(recipientPublicKey: [UInt8],
                            ephemeralKey: HPKE.PrivateKey) throws(ObliviousHTTPError) -> (sharedSecret: [UInt8], enc: [UInt8]) {
        let recipient = try X25519Key(publicKey: recipientPublicKey)
        let ephemeral = try X25519Key(privateKey: ephemeralKey.rawBytes)
        let dh = try ephemeral.sharedSecret(with: recipient)
        let enc = ephemeralKey.publicKeyBytes
        let sharedSecret = try extractAndExpand(dh: dh, kemContext: enc + recipientPublicKey)
        return (sharedSecret, enc)
    }

    /// Decap(enc, skR): the shared secret.
    static func decapsulate(enc: [UInt8], recipientKey: HPKE.PrivateKey) throws(ObliviousHTTPError) -> [UInt8] {
        guard enc.count == kem.encapsulatedKeyLength else {
            throw ObliviousHTTPError(.invalidKey, "an encapsulated X25519 key has 32 bytes, not \(enc.count)")
        }
        let ephemeral = try X25519Key(publicKey: enc)
        let recipient = try X25519Key(privateKey: recipientKey.rawBytes)
        let dh = try recipient.sharedSecret(with: ephemeral)
        return try extractAndExpand(dh: dh, kemContext: enc + recipientKey.publicKeyBytes)
    }

    /// DeriveKeyPair(ikm) for X25519: the private key; OpenSSL clamps it when it is used.
    static func derivePrivateKey(ikm: [UInt8]) throws(ObliviousHTTPError) -> [UInt8] {
        let prk = try labeled.extract(salt: [], label: "dkp_prk", ikm: ikm)
        return try labeled.expand(prk: prk, label: "sk", info: [], length: kem.privateKeyLength)
    }

    private static func extractAndExpand(dh: [UInt8], kemContext: [UInt8]) throws(ObliviousHTTPError) -> [UInt8] {
        let prk = try labeled.extract(salt: [], label: "eae_prk", ikm: dh)
        return try labeled.expand(prk: prk, label: "shared_secret", info: kemContext, length: kem.sharedSecretLength)
    }
}
