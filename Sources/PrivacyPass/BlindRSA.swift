/// The client side of RSABSSA-SHA384-PSS-Deterministic (RFC 9474): identity preparation, a 48-byte
/// salt, blinding by r^e and unblinding by r^-1, on OpenSSL's bignums. The issuer sees only the
/// blinded message; the finalized signature is an ordinary RSASSA-PSS signature over the message.
package struct BlindRSAPublicKey: Sendable, Hashable {
    /// The modulus and public exponent, big-endian.
    package let modulus: [UInt8]
    package let exponent: [UInt8]

    package init(modulus: [UInt8], exponent: [UInt8]) throws {
        let stripped = Array(modulus.drop(while: { $0 == 0 }))
        guard stripped.count >= 64, stripped.last.map({ $0 & 1 == 1 }) == true else {
            throw PrivacyPassError.malformedKey("the RSA modulus is not a usable odd number")
        }
        self.modulus = stripped
        self.exponent = Array(exponent.drop(while: { $0 == 0 }))
        guard !self.exponent.isEmpty else { throw PrivacyPassError.malformedKey("the RSA exponent is zero") }
    }

    /// kLen: the modulus in bytes, the length of every blinded message and signature.
    package var modulusLength: Int { modulus.count }

    /// What the client keeps between request and response.
    package struct Blinding: Sendable {
        package let message: [UInt8]
        package let encodedMessage: [UInt8]
        package let blindedMessage: [UInt8]
        /// r^-1 mod n, the RFC's `inv`.
        package let inverse: [UInt8]
    }

    /// Blind(pk, msg): EMSA-PSS encoding with `salt` (random unless given), then m * r^e mod n
    /// with `blind` r (random unless given; tests pass the RFC's).
    package func blind(_ message: [UInt8], salt: [UInt8]? = nil, blind: [UInt8]? = nil) throws -> Blinding {
        let n = try BigNumber(bytes: modulus)
        let arithmetic = try ModularArithmetic(modulus: n)
        guard let salt = salt ?? SecureBytes.random(PSSEncoding.hashLength) else { throw PrivacyPassError.cryptoFailure("no random salt") }
        let encoded = try PSSEncoding.encode(message: message, salt: salt, modulusBits: n.bitCount)
        let m = try BigNumber(bytes: encoded)
        let r = try blind.map { try BigNumber(bytes: $0) } ?? arithmetic.randomNonZero()
        // One inversion serves both checks: m * r is invertible exactly when m and r are coprime
        // with n (the RFC's checks), and then r^-1 = m * (m * r)^-1. A 2048-bit inversion costs
        // as much as the rest of Blind together.
        guard let inverseOfProduct = try arithmetic.inverse(arithmetic.multiply(m, r)) else {
            throw PrivacyPassError.cryptoFailure("the encoded message or the blind is not coprime with n")
        }
        let inverse = try arithmetic.multiply(m, inverseOfProduct)
        let x = try arithmetic.power(r, BigNumber(bytes: exponent))
        let z = try arithmetic.multiply(m, x)
        return Blinding(message: message, encodedMessage: try m.bytes(count: modulusLength),
                        blindedMessage: try z.bytes(count: modulusLength), inverse: try inverse.bytes(count: modulusLength))
    }

    /// Finalize: s = blind_sig * inv mod n, accepted only if s^e mod n is the encoded message
    /// this client blinded (so a wrong or malicious issuer's answer is never turned into a token).
    package func finalize(_ blindSignature: [UInt8], blinding: Blinding) throws -> [UInt8] {
        guard blindSignature.count == modulusLength else {
            throw PrivacyPassError.malformedMessage("the blind signature has \(blindSignature.count) bytes, not \(modulusLength)")
        }
        let n = try BigNumber(bytes: modulus)
        let arithmetic = try ModularArithmetic(modulus: n)
        let z = try BigNumber(bytes: blindSignature)
        guard z.isLess(than: n) else { throw PrivacyPassError.verificationFailed("the blind signature is not below n") }
        let s = try arithmetic.multiply(z, BigNumber(bytes: blinding.inverse))
        let recovered = try arithmetic.power(s, BigNumber(bytes: exponent))
        guard try recovered.bytes(count: modulusLength) == blinding.encodedMessage else {
            throw PrivacyPassError.verificationFailed("the RSA signature does not verify")
        }
        return try s.bytes(count: modulusLength)
    }

    /// RSASSA-PSS-VERIFY with SHA-384 and a 48-byte salt, for a token's authenticator.
    package func verify(signature: [UInt8], message: [UInt8]) throws -> Bool {
        guard signature.count == modulusLength else { return false }
        let n = try BigNumber(bytes: modulus)
        let arithmetic = try ModularArithmetic(modulus: n)
        let s = try BigNumber(bytes: signature)
        guard s.isLess(than: n) else { return false }
        let em = try arithmetic.power(s, BigNumber(bytes: exponent)).bytes(count: modulusLength)
        return PSSEncoding.verify(message: message, encoded: em, modulusBits: n.bitCount)
    }
}
