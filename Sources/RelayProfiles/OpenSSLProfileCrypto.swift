import Foundation
internal import COpenSSL

/// The OpenSSL parts of reading profiles: CMS signatures and PKCS#12 identities.
enum OpenSSLProfileCrypto {
    /// The signed content of a CMS (PKCS#7) signed profile, after checking the signature.
    /// - Parameter caFile: trust store for the signer's chain; nil means the system store.
    static func openSigned(_ der: Data, caFile: String?) throws(ProfileError) -> (content: Data, signature: ProfileSignature) {
        let cms: OpaquePointer? = der.withUnsafeBytes { raw in
            var cursor = raw.bindMemory(to: UInt8.self).baseAddress
            return d2i_CMS_ContentInfo(nil, &cursor, raw.count)
        }
        guard let cms else { throw ProfileError(keyPath: "", reason: "not a property list, and not a CMS-signed profile either") }
        defer { CMS_ContentInfo_free(cms) }
        // First the signature itself (content integrity), whoever signed it.
        guard let output = BIO_new(BIO_s_mem()) else { throw ProfileError(keyPath: "", reason: "out of memory") }
        defer { BIO_free(output) }
        guard CMS_verify(cms, nil, nil, nil, output, UInt32(CMS_NO_SIGNER_CERT_VERIFY | CMS_BINARY)) == 1 else {
            throw ProfileError(keyPath: "", reason: "the profile's CMS signature does not verify: \(lastError())")
        }
        var bytes: UnsafeMutablePointer<CChar>?
        let length = rf_BIO_get_mem_data(output, &bytes)
        let content = bytes.map { Data(bytes: $0, count: length) } ?? Data()
        // Then whether the signer's chain is trusted.
        var trusted = false
        if let store = X509_STORE_new() {
            defer { X509_STORE_free(store) }
            let loaded = caFile.map { X509_STORE_load_file(store, $0) } ?? X509_STORE_set_default_paths(store)
            if loaded == 1, let sink = BIO_new(BIO_s_mem()) {
                trusted = CMS_verify(cms, nil, store, nil, sink, UInt32(CMS_BINARY)) == 1
                BIO_free(sink)
            }
            ERR_clear_error()
        }
        var subject = "unknown signer"
        if let signers = CMS_get0_signers(cms) {
            if rf_sk_X509_num(signers) > 0, let first = rf_sk_X509_value(signers, 0) {
                subject = subjectText(first)
            }
            rf_sk_X509_free(signers)
        }
        return (content, ProfileSignature(signerSubject: subject, signerTrusted: trusted))
    }

    /// The certificate and key of a PKCS#12 blob.
    static func identity(pkcs12 der: Data, password: String, path: String) throws(ProfileError) -> (subject: String, certificate: [UInt8], key: [UInt8]) {
        let p12: OpaquePointer? = der.withUnsafeBytes { raw in
            var cursor = raw.bindMemory(to: UInt8.self).baseAddress
            return d2i_PKCS12(nil, &cursor, raw.count)
        }
        guard let p12 else { throw ProfileError(keyPath: path, reason: "PayloadContent is not a PKCS#12 file") }
        defer { PKCS12_free(p12) }
        var key: OpaquePointer?
        var certificate: OpaquePointer?
        var chain: OpaquePointer?
        guard PKCS12_parse(p12, password, &key, &certificate, &chain) == 1, let key, let certificate else {
            throw ProfileError(keyPath: path, reason: "cannot open the PKCS#12 identity (wrong Password?): \(lastError())")
        }
        defer {
            EVP_PKEY_free(key)
            X509_free(certificate)
            if let chain { rf_sk_X509_pop_free(chain) }
        }
        return (subjectText(certificate), try encodeDER { i2d_X509(certificate, &$0) }, try encodeDER { i2d_PrivateKey(key, &$0) })
    }

    private static func encodeDER(_ encode: (inout UnsafeMutablePointer<UInt8>?) -> Int32) throws(ProfileError) -> [UInt8] {
        var pointer: UnsafeMutablePointer<UInt8>?
        let length = encode(&pointer)
        guard length > 0, let pointer else { throw ProfileError(keyPath: "", reason: "cannot encode the identity") }
        defer { CRYPTO_free(pointer, #file, #line) }
        return Array(UnsafeBufferPointer(start: pointer, count: Int(length)))
    }

    private static func subjectText(_ certificate: OpaquePointer) -> String {
        guard let name = X509_get_subject_name(certificate), let bio = BIO_new(BIO_s_mem()) else { return "?" }
        defer { BIO_free(bio) }
        X509_NAME_print_ex(bio, name, 0, rf_XN_FLAG_RFC2253())
        var bytes: UnsafeMutablePointer<CChar>?
        let length = rf_BIO_get_mem_data(bio, &bytes)
        return bytes.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: length), as: UTF8.self) } ?? "?"
    }

    private static func lastError() -> String {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return "unknown error" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self).split(separator: ":").last.map(String.init) ?? ""
    }
}
