import WireFormat

/// The constants and derivations RFC 9458 Sections 4.3 and 4.4 share between client and gateway.
enum OHTTPMessage {
    static let requestLabel = Array("message/bhttp request".utf8)
    static let responseLabel = Array("message/bhttp response".utf8)
    /// key_id (1) + kem_id (2) + kdf_id (2) + aead_id (2).
    static let headerLength = 7

    /// hdr = key_id || kem_id || kdf_id || aead_id.
    static func header(keyID: UInt8, suite: HPKE.CipherSuite) -> [UInt8] {
        [keyID] + suite.kem.rawValue.bigEndianBytes + suite.kdf.rawValue.bigEndianBytes + suite.aead.rawValue.bigEndianBytes
    }

    /// info = "message/bhttp request" || 0x00 || hdr.
    static func requestInfo(header: [UInt8]) -> [UInt8] {
        requestLabel + [0] + header
    }

    /// max(Nn, Nk): the length of the response nonce and of the exported response secret.
    static func responseNonceLength(_ suite: HPKE.CipherSuite) -> Int {
        max(suite.aead.nonceLength, suite.aead.keyLength)
    }

    /// The exported secret the response keys come from.
    static func responseSecret(exporting context: HPKEContext) throws(ObliviousHTTPError) -> [UInt8] {
        try context.export(context: responseLabel, length: responseNonceLength(context.suite))
    }

    /// prk = Extract(enc || response_nonce, secret); key = Expand(prk, "key", Nk);
    /// nonce = Expand(prk, "nonce", Nn).
    static func responseKeys(suite: HPKE.CipherSuite, secret: [UInt8], enc: [UInt8],
                             responseNonce: [UInt8]) throws(ObliviousHTTPError) -> (key: [UInt8], nonce: [UInt8]) {
        let prk = try HKDF.extract(suite.kdf, salt: enc + responseNonce, ikm: secret)
        let key = try HKDF.expand(suite.kdf, prk: prk, info: Array("key".utf8), length: suite.aead.keyLength)
        let nonce = try HKDF.expand(suite.kdf, prk: prk, info: Array("nonce".utf8), length: suite.aead.nonceLength)
        return (key, nonce)
    }
}
