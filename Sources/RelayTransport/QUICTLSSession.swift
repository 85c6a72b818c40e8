#if canImport(Glibc)
import Glibc
#endif
import Foundation
internal import CNgtcp2

/// The TLS 1.3 half of a QUIC client connection: one GnuTLS session and its certificate
/// credentials, set up by ngtcp2's GnuTLS helper to run inside QUIC CRYPTO frames (RFC 9001).
/// It offers one ALPN protocol, sends SNI for host names (never for IP literals) and verifies
/// the relay's certificate for that name or address; with pinned keys it checks only the key.
/// Owns the session, the credentials and the verified name; frees them in deinit.
final class QUICTLSSession {
    let session: OpaquePointer  // gnutls_session_t
    private let credentials: OpaquePointer  // gnutls_certificate_credentials_t
    private let verifiedName: UnsafeMutablePointer<CChar>?  // GnuTLS keeps the pointer, not a copy
    private let policy: TLSTrustPolicy

    /// TLS 1.3 only, with the AEADs QUIC allows, and no middlebox compatibility mode (RFC 9001 §8.4).
    private static let priority = "NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:+AES-128-GCM:+AES-256-GCM:+CHACHA20-POLY1305:+AES-128-CCM:%DISABLE_TLS13_COMPAT_MODE"

    init(trust: TLSTrust, serverName: String, alpn: String) throws(TLSSetupError) {
        var credentials: OpaquePointer?
        guard gnutls_certificate_allocate_credentials(&credentials) == 0, let credentials else {
            throw TLSSetupError(reason: "GnuTLS: cannot allocate credentials")
        }
        var session: OpaquePointer?
        guard gnutls_init(&session, UInt32(GNUTLS_CLIENT)) == 0, let session else {
            gnutls_certificate_free_credentials(credentials)
            throw TLSSetupError(reason: "GnuTLS: cannot create a session")
        }
        self.session = session
        self.credentials = credentials
        policy = TLSTrustPolicy(trust)
        // With pins the key is checked after the handshake (`peerCheck`) instead of the chain.
        verifiedName = policy.verifiesChain ? strdup(serverName) : nil
        try configure(serverName: serverName, alpn: alpn)
    }

    deinit {
        gnutls_deinit(session)
        gnutls_certificate_free_credentials(credentials)
        free(verifiedName)
    }

    private func configure(serverName: String, alpn: String) throws(TLSSetupError) {
        if let anchors = policy.anchors {
            let loaded: Int32
            switch anchors {
            case .file(let path): loaded = gnutls_certificate_set_x509_trust_file(credentials, path, GNUTLS_X509_FMT_PEM)
            case .systemStore: loaded = gnutls_certificate_set_x509_system_trust(credentials)
            }
            guard loaded > 0 else { throw policy.loadFailure(Self.describe(loaded == 0 ? GNUTLS_E_NO_CERTIFICATE_FOUND : loaded)) }
        }
        if let identity = policy.clientIdentity { try use(identity) }
        try check(gnutls_priority_set_direct(session, Self.priority, nil), "priority")
        guard ngtcp2_crypto_gnutls_configure_client_session(session) == 0 else {
            throw TLSSetupError(reason: "ngtcp2: cannot configure the GnuTLS session for QUIC")
        }
        try check(gnutls_credentials_set(session, GNUTLS_CRD_CERTIFICATE, UnsafeMutableRawPointer(credentials)), "credentials")
        var name = Array(alpn.utf8)
        let rc = name.withUnsafeMutableBufferPointer { buffer in  // GnuTLS copies the protocol names
            var datum = gnutls_datum_t(data: buffer.baseAddress, size: UInt32(buffer.count))
            return gnutls_alpn_set_protocols(session, &datum, 1, UInt32(GNUTLS_ALPN_MANDATORY.rawValue))
        }
        try check(rc, "ALPN")
        if !TLSLayer.isIPLiteral(serverName) {
            try check(gnutls_server_name_set(session, GNUTLS_NAME_DNS, serverName, serverName.utf8.count), "server name")
        }
        if let verifiedName {
            // Checks the chain against the trusted CAs and the name (or IP address SAN) in the handshake.
            gnutls_session_set_verify_cert(session, verifiedName, 0)
        }
    }

    private func use(_ identity: TLSClientIdentity) throws(TLSSetupError) {
        var certificate = identity.certificateDER, key = identity.privateKeyDER
        let rc = certificate.withUnsafeMutableBufferPointer { certificateBytes in
            key.withUnsafeMutableBufferPointer { keyBytes in
                var certificateDatum = gnutls_datum_t(data: certificateBytes.baseAddress, size: UInt32(certificateBytes.count))
                var keyDatum = gnutls_datum_t(data: keyBytes.baseAddress, size: UInt32(keyBytes.count))
                return gnutls_certificate_set_x509_key_mem(credentials, &certificateDatum, &keyDatum, GNUTLS_X509_FMT_DER)
            }
        }
        try check(rc, "client identity")
    }

    /// Hands GnuTLS the pointer ngtcp2's helper looks up the QUIC connection with; the caller
    /// keeps `reference` alive as long as this session.
    func attach(_ reference: UnsafeMutablePointer<ngtcp2_crypto_conn_ref>) {
        gnutls_session_set_ptr(session, reference)
    }

    /// The ALPN protocol the relay selected, after the handshake.
    var negotiatedALPN: String? {
        var datum = gnutls_datum_t()
        guard gnutls_alpn_get_selected_protocol(session, &datum) == 0, let data = datum.data else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(datum.size)), as: UTF8.self)
    }

    /// After the handshake: nil when the relay may be used (no pins, or its key is pinned), else why not.
    var peerCheck: RelayError.Cause? {
        policy.pins.isEmpty ? nil : policy.checkPeer(keyDigest: peerPublicKeyDigest())
    }

    private func peerPublicKeyDigest() -> [UInt8]? {
        var count: UInt32 = 0
        guard let chain = gnutls_certificate_get_peers(session, &count), count > 0 else { return nil }
        var key: OpaquePointer?
        guard gnutls_pubkey_init(&key) == 0, let key else { return nil }
        defer { gnutls_pubkey_deinit(key) }
        guard gnutls_pubkey_import_x509_raw(key, chain, GNUTLS_X509_FMT_DER, 0) == 0 else { return nil }
        var size = 0
        _ = gnutls_pubkey_export(key, GNUTLS_X509_FMT_DER, nil, &size)  // asks for the size
        var der = [UInt8](repeating: 0, count: size)
        guard size > 0, gnutls_pubkey_export(key, GNUTLS_X509_FMT_DER, &der, &size) == 0 else { return nil }
        var digest = [UInt8](repeating: 0, count: 32)
        guard gnutls_hash_fast(GNUTLS_DIG_SHA256, der, size, &digest) == 0 else { return nil }
        return digest
    }

    /// Why the handshake failed, as far as GnuTLS can tell: a certificate problem, else `fallback`.
    func failureReason(fallback: String) -> String {
        let status = gnutls_session_get_verify_cert_status(session)
        guard status != 0 else { return fallback }
        var text = gnutls_datum_t()
        guard gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &text, 0) == 0, let data = text.data else {
            return "certificate verify failed"
        }
        defer { rf_gnutls_free(data) }
        let detail = String(decoding: UnsafeBufferPointer(start: data, count: Int(text.size)), as: UTF8.self)
        return "certificate verify failed: " + detail.trimmingCharacters(in: .whitespaces)
    }

    private func check(_ rc: Int32, _ what: String) throws(TLSSetupError) {
        guard rc >= 0 else { throw TLSSetupError(reason: "GnuTLS \(what): \(Self.describe(rc))") }
    }

    static func describe(_ rc: Int32) -> String { String(cString: gnutls_strerror(rc)) }
}
