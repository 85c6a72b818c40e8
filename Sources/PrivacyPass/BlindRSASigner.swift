import Foundation
internal import COpenSSL

/// The issuer's side of Blind RSA: BlindSign (RFC 9474 §4.3), s = m^d mod n checked by s^e == m
/// before it leaves. For tests and the loopback issuer; clients never hold one.
package final class BlindRSASigner {
    package let publicKey: BlindRSAPublicKey
    private let privateExponent: BigNumber

    package init(modulus: [UInt8], publicExponent: [UInt8], privateExponent: [UInt8]) throws {
        publicKey = try BlindRSAPublicKey(modulus: modulus, exponent: publicExponent)
        self.privateExponent = try BigNumber(bytes: privateExponent)
    }

    /// A signer for an RSA private key in PEM (PKCS#8 or PKCS#1), as RFC 9578's vectors give it.
    package convenience init(pem: [UInt8]) throws {
        let key = try pem.withUnsafeBufferPointer { buffer throws -> OpaquePointer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { throw PrivacyPassError.cryptoFailure("BIO_new_mem_buf") }
            defer { BIO_free(bio) }
            guard let key = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else { throw PrivacyPassError.malformedKey("the PEM holds no private key") }
            return key
        }
        defer { EVP_PKEY_free(key) }
        try self.init(key: key)
    }

    /// A fresh RSA key of `bits` bits with e = 65537 (OpenSSL's generator).
    package static func generate(bits: Int = 2048) throws -> BlindRSASigner {
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_RSA, nil) else { throw PrivacyPassError.cryptoFailure("EVP_PKEY_CTX_new_id") }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(bits)) == 1,
              EVP_PKEY_keygen(context, &key) == 1, let key else { throw PrivacyPassError.cryptoFailure("RSA key generation") }
        defer { EVP_PKEY_free(key) }
        return try BlindRSASigner(key: key)
    }

    private convenience init(key: OpaquePointer) throws {
        func parameter(_ name: String) throws -> [UInt8] {
            var value: OpaquePointer?
            guard EVP_PKEY_get_bn_param(key, name, &value) == 1, let value else { throw PrivacyPassError.malformedKey("the key has no RSA \(name)") }
            defer { BN_clear_free(value) }
            var out = [UInt8](repeating: 0, count: (Int(BN_num_bits(value)) + 7) / 8)
            _ = out.withUnsafeMutableBufferPointer { BN_bn2bin(value, $0.baseAddress) }
            return out
        }
        try self.init(modulus: parameter("n"), publicExponent: parameter("e"), privateExponent: parameter("d"))
    }

    /// BlindSign: the blind signature over a blinded message of kLen bytes.
    package func blindSign(_ blindedMessage: [UInt8]) throws -> [UInt8] {
        let length = publicKey.modulusLength
        guard blindedMessage.count == length else { throw PrivacyPassError.malformedMessage("the blinded message has \(blindedMessage.count) bytes, not \(length)") }
        let n = try BigNumber(bytes: publicKey.modulus)
        let arithmetic = try ModularArithmetic(modulus: n)
        let m = try BigNumber(bytes: blindedMessage)
        guard m.isLess(than: n) else { throw PrivacyPassError.malformedMessage("the blinded message is not below n") }
        let s = try arithmetic.secretPower(m, privateExponent)
        guard try arithmetic.power(s, BigNumber(bytes: publicKey.exponent)).equals(m) else {
            throw PrivacyPassError.cryptoFailure("the blind signature failed its own check")
        }
        return try s.bytes(count: length)
    }
}
