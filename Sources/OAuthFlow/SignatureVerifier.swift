import Foundation
internal import COpenSSL

/// The one place OAuthFlow calls OpenSSL: digests, and JWS signature checks over a public key
/// given as DER SubjectPublicKeyInfo (RS256: RSASSA-PKCS1-v1_5 with SHA-256; ES256: ECDSA P-256
/// with SHA-256, raw r||s; EdDSA: Ed25519).
enum SignatureVerifier {
    enum Algorithm: String, Sendable {
        case rs256 = "RS256"
        case es256 = "ES256"
        case edDSA = "EdDSA"
    }

    /// True only when OpenSSL verifies `signature` over `message`; any parsing or library
    /// failure is a failed verification.
    static func verify(_ algorithm: Algorithm, publicKey spki: Data, message: Data, signature: Data) -> Bool {
        guard let key = publicKey(spki) else { return false }
        defer { EVP_PKEY_free(key) }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        var signatureBytes = signature
        let digest: OpaquePointer?
        switch algorithm {
        case .rs256:
            digest = EVP_sha256()
        case .es256:
            guard signature.count == 64 else { return false }
            // OpenSSL wants ECDSA-Sig-Value (DER); JWS sends r||s.
            signatureBytes = DEREncoder.sequence([DEREncoder.unsignedInteger(signature.prefix(32)),
                                                  DEREncoder.unsignedInteger(signature.suffix(32))])
            digest = EVP_sha256()
        case .edDSA:
            digest = nil
        }
        guard EVP_DigestVerifyInit(context, nil, digest, nil, key) == 1 else { return false }
        let status = signatureBytes.withUnsafeBytes { signaturePointer in
            message.withUnsafeBytes { messagePointer in
                EVP_DigestVerify(context, signaturePointer.bindMemory(to: UInt8.self).baseAddress, signaturePointer.count,
                                 messagePointer.bindMemory(to: UInt8.self).baseAddress, messagePointer.count)
            }
        }
        ERR_clear_error()
        return status == 1
    }

    private static func publicKey(_ spki: Data) -> OpaquePointer? {
        spki.withUnsafeBytes { raw -> OpaquePointer? in
            var pointer: UnsafePointer<UInt8>? = raw.bindMemory(to: UInt8.self).baseAddress
            let key = d2i_PUBKEY(nil, &pointer, raw.count)
            if key == nil { ERR_clear_error() }
            return key
        }
    }
}
