internal import COpenSSL

/// Raw HKDF-Extract and HKDF-Expand (RFC 5869) for the HPKE KDFs, on OpenSSL's "HKDF" KDF in its
/// EXTRACT_ONLY and EXPAND_ONLY modes. HPKE's labeled variants (`HPKEKeySchedule`) and the OHTTP
/// response keys both need the two halves separately.
enum HKDF {
    /// HKDF-Extract(salt, ikm): Nh bytes. An empty salt means Nh zero bytes, as RFC 5869 says.
    static func extract(_ kdf: HPKE.KDF, salt: [UInt8], ikm: [UInt8]) throws(ObliviousHTTPError) -> [UInt8] {
        let context = try HKDFContext()
        return try context.derive(mode: EVP_KDF_HKDF_MODE_EXTRACT_ONLY, kdf: kdf, key: ikm, salt: salt, info: [],
                                  length: kdf.hashLength)
    }

    /// HKDF-Expand(prk, info, length); `length` is at most 255 * Nh.
    static func expand(_ kdf: HPKE.KDF, prk: [UInt8], info: [UInt8], length: Int) throws(ObliviousHTTPError) -> [UInt8] {
        guard length > 0, length <= 255 * kdf.hashLength else {
            throw ObliviousHTTPError(.invalidLength, "HKDF-Expand cannot produce \(length) bytes with Nh = \(kdf.hashLength)")
        }
        let context = try HKDFContext()
        return try context.derive(mode: EVP_KDF_HKDF_MODE_EXPAND_ONLY, kdf: kdf, key: prk, salt: [], info: info,
                                  length: length)
    }
}

/// Owns one `EVP_KDF_CTX` for OpenSSL's HKDF, and frees it.
private final class HKDFContext {
    private let pointer: OpaquePointer

    init() throws(ObliviousHTTPError) {
        guard let method = EVP_KDF_fetch(nil, "HKDF", nil) else { throw .openSSL("EVP_KDF_fetch(HKDF)") }
        // The context takes its own reference to the method.
        defer { EVP_KDF_free(method) }
        guard let context = EVP_KDF_CTX_new(method) else { throw .openSSL("EVP_KDF_CTX_new") }
        pointer = context
    }

    deinit { EVP_KDF_CTX_free(pointer) }

    /// One HKDF call. The parameter names and the digest name are static strings, and the byte
    /// buffers are pinned for the call, so every pointer in the OSSL_PARAM list outlives its use.
    func derive(mode: Int32, kdf: HPKE.KDF, key: [UInt8], salt: [UInt8], info: [UInt8],
                length: Int) throws(ObliviousHTTPError) -> [UInt8] {
        guard !key.isEmpty else { throw ObliviousHTTPError(.cryptoFailure, "HKDF needs a non-empty key") }
        var output = [UInt8](repeating: 0, count: length)
        var mode = mode
        let status: Int32 = withUnsafeMutablePointer(to: &mode) { modePointer in
            key.withUnsafeBytes { keyBytes in
                salt.withUnsafeBytes { saltBytes in
                    info.withUnsafeBytes { infoBytes in
                        var parameters = [
                            OSSL_PARAM_construct_int(Self.name("mode"), modePointer),
                            OSSL_PARAM_construct_utf8_string(Self.name("digest"), Self.mutableName(kdf.digestName), 0),
                            OSSL_PARAM_construct_octet_string(Self.name("key"), UnsafeMutableRawPointer(mutating: keyBytes.baseAddress), keyBytes.count),
                        ]
                        if let base = saltBytes.baseAddress, saltBytes.count > 0 {
                            parameters.append(OSSL_PARAM_construct_octet_string(Self.name("salt"), UnsafeMutableRawPointer(mutating: base), saltBytes.count))
                        }
                        if let base = infoBytes.baseAddress, infoBytes.count > 0 {
                            parameters.append(OSSL_PARAM_construct_octet_string(Self.name("info"), UnsafeMutableRawPointer(mutating: base), infoBytes.count))
                        }
                        parameters.append(OSSL_PARAM_construct_end())
                        return output.withUnsafeMutableBufferPointer { out in
                            EVP_KDF_derive(pointer, out.baseAddress, out.count, &parameters)
                        }
                    }
                }
            }
        }
        guard status == 1 else { throw .openSSL("EVP_KDF_derive(HKDF)") }
        return output
    }

    private static func name(_ text: StaticString) -> UnsafePointer<CChar> {
        UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
    }

    /// OpenSSL only reads the digest name, but its constructor is declared with a mutable pointer.
    private static func mutableName(_ text: StaticString) -> UnsafeMutablePointer<CChar> {
        UnsafeMutablePointer(mutating: name(text))
    }
}
