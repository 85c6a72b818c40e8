import Foundation
internal import COpenSSL

/// Message digests on OpenSSL: SHA-1 (WARC's payload digests), SHA-256 and SHA-512, in one go
/// or over data that arrives in pieces.
package final class Digest {
    package enum Algorithm: Sendable {
        case sha1, sha256, sha512

        fileprivate var method: OpaquePointer? {
            switch self {
            case .sha1: return EVP_sha1()
            case .sha256: return EVP_sha256()
            case .sha512: return EVP_sha512()
            }
        }
    }

    private let context = EVP_MD_CTX_new()

    /// A digest to feed with `update`.
    package init(_ algorithm: Algorithm) { EVP_DigestInit_ex(context, algorithm.method, nil) }
    deinit { EVP_MD_CTX_free(context) }

    package func update(_ bytes: UnsafeRawBufferPointer) { _ = EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) }
    package func update(_ data: Data) { data.withUnsafeBytes { update($0) } }

    /// The digest of everything fed so far; the context is done afterwards.
    package func finish() -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &output, &length)
        return Array(output.prefix(Int(length)))
    }

    /// The digest of `data`.
    package static func of(_ data: Data, _ algorithm: Algorithm) -> [UInt8] {
        let digest = Digest(algorithm)
        digest.update(data)
        return digest.finish()
    }

    /// The digest of `bytes`.
    package static func of(_ bytes: UnsafeRawBufferPointer, _ algorithm: Algorithm) -> [UInt8] {
        let digest = Digest(algorithm)
        digest.update(bytes)
        return digest.finish()
    }

    /// Lower-case hex of `bytes`.
    package static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }
}
