import Foundation
internal import COpenSSL
import CryptoPrimitives

/// A private key that signs compact JWS, read from PEM: RSA (RS256), EC P-256 (ES256) or
/// Ed25519 (EdDSA). Its OpenSSL key is an `OwnedKey`, freed when it goes. Used for
/// `private_key_jwt` client authentication.
// @unchecked: an OpenSSL key (a C pointer), immutable after init; OpenSSL allows signing with
// one key from several threads at once.
public final class JWSSigningKey: @unchecked Sendable {
    private let key: OwnedKey
    /// The JWS `alg` the key signs with.
    public let algorithm: String
    /// The `kid` put in the header, if any.
    public let keyID: String?

    /// Reads a PEM private key (PKCS#8 or traditional); throws `configuration` for an
    /// unreadable key or an unsupported type or curve.
    public init(pem: Data, keyID: String? = nil) throws(OAuthError) {
        let parsed: OpaquePointer? = pem.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let parsed else {
            ERR_clear_error()
            throw OAuthError(.configuration("the private key is not a readable PEM key"))
        }
        switch EVP_PKEY_get_base_id(parsed) {
        case EVP_PKEY_RSA: algorithm = "RS256"
        case EVP_PKEY_EC where EVP_PKEY_get_bits(parsed) == 256: algorithm = "ES256"
        case EVP_PKEY_ED25519: algorithm = "EdDSA"
        default:
            EVP_PKEY_free(parsed)
            throw OAuthError(.configuration("the private key is not RSA, EC P-256 or Ed25519"))
        }
        key = OwnedKey(taking: parsed)
        self.keyID = keyID
    }

    /// Signs `claims` as a compact JWS with header `{"alg", "typ": "JWT", "kid"}`.
    public func sign(claims: JSONValue) throws(OAuthError) -> String {
        var header: [String: JSONValue] = ["alg": .string(algorithm), "typ": .string("JWT")]
        if let keyID { header["kid"] = .string(keyID) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let headerData = try? encoder.encode(JSONValue.object(header)), let payload = try? encoder.encode(claims) else {
            throw OAuthError(.configuration("the claims cannot be encoded"))
        }
        let input = Base64URL.encode(headerData) + "." + Base64URL.encode(payload)
        guard let signature = signature(over: Data(input.utf8)) else { throw OAuthError(.configuration("OpenSSL could not sign")) }
        return input + "." + Base64URL.encode(signature)
    }

    private func signature(over message: Data) -> Data? {
        guard let context = EVP_MD_CTX_new() else { return nil }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, algorithm == "EdDSA" ? nil : EVP_sha256(), nil, key.pointer) == 1 else {
            ERR_clear_error()
            return nil
        }
        var length = 0
        let signed: [UInt8]? = message.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self).baseAddress
            guard EVP_DigestSign(context, nil, &length, bytes, raw.count) == 1 else { return nil }
            var output = [UInt8](repeating: 0, count: length)
            guard EVP_DigestSign(context, &output, &length, bytes, raw.count) == 1 else { return nil }
            return Array(output.prefix(length))
        }
        guard let signed else {
            ERR_clear_error()
            return nil
        }
        // ES256 in JWS is r||s, 32 bytes each; OpenSSL gives ECDSA-Sig-Value (DER).
        return algorithm == "ES256" ? DERDecoder.rawECDSASignature(Data(signed), size: 32) : Data(signed)
    }
}

/// Reads the one DER structure OAuthFlow receives from OpenSSL: ECDSA-Sig-Value.
enum DERDecoder {
    /// SEQUENCE { INTEGER r, INTEGER s } as r||s, each left-padded to `size` bytes.
    static func rawECDSASignature(_ der: Data, size: Int) -> Data? {
        let bytes = [UInt8](der)
        var index = 0
        func length() -> Int? {
            guard index < bytes.count else { return nil }
            let first = Int(bytes[index])
            index += 1
            guard first & 0x80 != 0 else { return first }
            let count = first & 0x7F
            guard count <= 2, index + count <= bytes.count else { return nil }
            let value = bytes[index..<index + count].reduce(0) { $0 << 8 | Int($1) }
            index += count
            return value
        }
        func integer() -> Data? {
            guard index < bytes.count, bytes[index] == 0x02 else { return nil }
            index += 1
            guard let count = length(), index + count <= bytes.count else { return nil }
            let value = Data(bytes[index..<index + count].drop { $0 == 0 })
            index += count
            guard value.count <= size else { return nil }
            return Data(repeating: 0, count: size - value.count) + value
        }
        guard bytes.first == 0x30 else { return nil }
        index = 1
        guard length() != nil, let r = integer(), let s = integer() else { return nil }
        return r + s
    }
}
