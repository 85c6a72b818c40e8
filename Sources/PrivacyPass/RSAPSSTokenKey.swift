/// The token key of type 0x0002 (RFC 9578 §6.5): a DER SubjectPublicKeyInfo whose algorithm is
/// id-RSASSA-PSS with SHA-384, MGF1-SHA-384 and a 48-byte salt, and whose key is an RSAPublicKey.
/// Its SHA-256 is the token_key_id.
enum RSAPSSTokenKey {
    /// AlgorithmIdentifier { id-RSASSA-PSS, RSASSA-PSS-params { sha384, mgf1(sha384), 48 } }, DER.
    static let algorithmIdentifier: [UInt8] = [
        0x30, 0x3D, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0A,
        0x30, 0x30,
        0xA0, 0x0D, 0x30, 0x0B, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x02,
        0xA1, 0x1A, 0x30, 0x18, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x08,
        0x30, 0x0B, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x02,
        0xA2, 0x03, 0x02, 0x01, 0x30,
    ]

    static func encode(_ key: BlindRSAPublicKey) -> [UInt8] {
        let rsaPublicKey = DER.sequence(DER.integer(key.modulus) + DER.integer(key.exponent))
        return DER.sequence(algorithmIdentifier + DER.element(tag: 0x03, [0x00] + rsaPublicKey))
    }

    /// The key in an SPKI; throws unless the algorithm is exactly the one RFC 9578 requires.
    static func decode(_ spki: [UInt8]) throws -> BlindRSAPublicKey {
        var outer = DER.Reader(spki)
        var body = DER.Reader(try outer.read(tag: 0x30))
        guard outer.isAtEnd else { throw PrivacyPassError.malformedKey("bytes follow the SPKI") }
        let algorithm = try body.readElement()
        guard algorithm == algorithmIdentifier else { throw PrivacyPassError.malformedKey("the SPKI's algorithm is not RSASSA-PSS with SHA-384 and salt 48") }
        let bits = try body.read(tag: 0x03)
        guard body.isAtEnd, bits.first == 0x00 else { throw PrivacyPassError.malformedKey("the SPKI's key is not a whole-byte BIT STRING") }
        var keyReader = DER.Reader(Array(bits.dropFirst()))
        var rsa = DER.Reader(try keyReader.read(tag: 0x30))
        let modulus = try rsa.read(tag: 0x02)
        let exponent = try rsa.read(tag: 0x02)
        guard rsa.isAtEnd, keyReader.isAtEnd else { throw PrivacyPassError.malformedKey("the RSAPublicKey has extra fields") }
        return try BlindRSAPublicKey(modulus: modulus, exponent: exponent)
    }
}
