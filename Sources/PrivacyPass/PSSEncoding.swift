/// EMSA-PSS-ENCODE (RFC 8017 §9.1.1) with SHA-384 and MGF1-SHA-384, the encoding RSABSSA-SHA384
/// signs. Blind RSA must encode before blinding, so OpenSSL's sign-side padding cannot be used.
enum PSSEncoding {
    static let hashLength = 48

    /// The encoded message for a modulus of `modulusBits` bits (emBits = modulusBits - 1).
    static func encode(message: [UInt8], salt: [UInt8], modulusBits: Int) throws -> [UInt8] {
        let emBits = modulusBits - 1
        let emLength = (emBits + 7) / 8
        guard emLength >= hashLength + salt.count + 2 else { throw PrivacyPassError.cryptoFailure("the modulus is too short for PSS") }
        let messageHash = SHA.sha384(message)
        let h = SHA.sha384([UInt8](repeating: 0, count: 8) + messageHash + salt)
        var db = [UInt8](repeating: 0, count: emLength - salt.count - hashLength - 2)
        db.append(0x01)
        db += salt
        let mask = mgf1(seed: h, length: emLength - hashLength - 1)
        for index in db.indices { db[index] ^= mask[index] }
        db[0] &= UInt8(0xFF >> (8 * emLength - emBits))
        return db + h + [0xBC]
    }

    /// MGF1 with SHA-384.
    static func mgf1(seed: [UInt8], length: Int) -> [UInt8] {
        var out: [UInt8] = []
        var counter: UInt32 = 0
        while out.count < length {
            out += SHA.sha384(seed + [UInt8(counter >> 24), UInt8(counter >> 16 & 0xFF), UInt8(counter >> 8 & 0xFF), UInt8(counter & 0xFF)])
            counter += 1
        }
        return Array(out.prefix(length))
    }
}

extension PSSEncoding {
    /// EMSA-PSS-VERIFY for a 48-byte salt; `encoded` is s^e as kLen bytes.
    static func verify(message: [UInt8], encoded: [UInt8], modulusBits: Int) -> Bool {
        let emBits = modulusBits - 1
        let emLength = (emBits + 7) / 8
        let em = Array(encoded.suffix(emLength))
        guard encoded.count - emLength >= 0, encoded.prefix(encoded.count - emLength).allSatisfy({ $0 == 0 }),
              em.count == emLength, emLength >= 2 * hashLength + 2, em.last == 0xBC else { return false }
        var db = Array(em.prefix(emLength - hashLength - 1))
        let h = Array(em[(emLength - hashLength - 1)..<(emLength - 1)])
        let topBits = 8 * emLength - emBits
        guard db[0] & ~UInt8(0xFF >> topBits) == 0 else { return false }
        let mask = mgf1(seed: h, length: db.count)
        for index in db.indices { db[index] ^= mask[index] }
        db[0] &= UInt8(0xFF >> topBits)
        let paddingLength = emLength - 2 * hashLength - 2
        guard db.prefix(paddingLength).allSatisfy({ $0 == 0 }), db[paddingLength] == 0x01 else { return false }
        let salt = Array(db.suffix(hashLength))
        return SHA.sha384([UInt8](repeating: 0, count: 8) + SHA.sha384(message) + salt) == h
    }
}
