internal import COpenSSL

/// The two digests Privacy Pass names: SHA-256 (challenge digests, key ids) and SHA-384 (PSS,
/// VOPRF). One-shot OpenSSL calls; `Digest` in CryptoPrimitives has no SHA-384.
enum SHA {
    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        _ = bytes.withUnsafeBufferPointer { SHA256($0.baseAddress, $0.count, &output) }
        return output
    }

    static func sha384(_ bytes: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 48)
        _ = bytes.withUnsafeBufferPointer { SHA384($0.baseAddress, $0.count, &output) }
        return output
    }
}
