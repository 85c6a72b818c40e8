internal import COpenSSL
import CryptoPrimitives

/// How a TLS layer checks its peer.
package struct TLSTrust: Sendable, Hashable {
    /// PEM file of trusted CAs; nil means the system store.
    package var caFile: String?
    /// SHA-256 digests of acceptable SubjectPublicKeyInfo DER encodings (like Apple's
    /// RawPublicKeys). When set, the peer is trusted if and only if its key matches one; the CA
    /// chain is not consulted.
    package var pinnedPublicKeys: [[UInt8]]
    /// A client certificate and key to authenticate us to the peer, if it asks.
    package var clientIdentity: TLSClientIdentity?

    package init(caFile: String? = nil, pinnedPublicKeys: [[UInt8]] = [], clientIdentity: TLSClientIdentity? = nil) {
        self.caFile = caFile
        self.pinnedPublicKeys = pinnedPublicKeys
        self.clientIdentity = clientIdentity
    }

    package static let system = TLSTrust()
}

/// Owns one OpenSSL `SSL_CTX`: TLS 1.2+, trust as `TLSTrustPolicy` says.
final class TLSContext {
    let pointer: OpaquePointer
    let policy: TLSTrustPolicy

    init(trust: TLSTrust) throws(TLSSetupError) {
        guard let ctx = SSL_CTX_new(TLS_client_method()) else { throw TLSSetupError(reason: TLSContext.lastError()) }
        pointer = ctx
        policy = TLSTrustPolicy(trust)
        _ = rf_SSL_CTX_set_min_proto_version(ctx, rf_TLS1_2_VERSION())
        // With pins the key is checked after the handshake (TLSLayer) instead of the chain.
        SSL_CTX_set_verify(ctx, policy.verifiesChain ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, nil)
        _ = rf_SSL_CTX_set_mode(ctx, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
        // Tickets and sessions stay in memory, owned by this context; nothing goes to disk.
        _ = rf_SSL_CTX_set_session_cache_mode(ctx, Int(SSL_SESS_CACHE_OFF))
        let loaded: Int32
        switch policy.anchors {
        case nil: loaded = 1
        case .file(let path)?: loaded = SSL_CTX_load_verify_locations(ctx, path, nil)
        case .systemStore?: loaded = SSL_CTX_set_default_verify_paths(ctx)
        }
        if loaded != 1 { throw policy.loadFailure(TLSContext.lastError()) }
        if let identity = policy.clientIdentity {
            try Self.use(identity, in: ctx)
        }
    }

    deinit { SSL_CTX_free(pointer) }

    private static func use(_ identity: TLSClientIdentity, in ctx: OpaquePointer) throws(TLSSetupError) {
        let certificateOK = identity.certificateDER.withUnsafeBufferPointer {
            SSL_CTX_use_certificate_ASN1(ctx, Int32($0.count), $0.baseAddress) == 1
        }
        let keyOK = identity.privateKeyDER.withUnsafeBufferPointer { buffer -> Bool in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let key = d2i_AutoPrivateKey(nil, &cursor, buffer.count) else { return false }
            defer { EVP_PKEY_free(key) }
            return SSL_CTX_use_PrivateKey(ctx, key) == 1 && SSL_CTX_check_private_key(ctx) == 1
        }
        guard certificateOK, keyOK else {
            throw TLSSetupError(reason: "cannot use the client identity: \(lastError())")
        }
    }

    /// SHA-256 of the DER SubjectPublicKeyInfo of the peer's certificate on `ssl`.
    static func peerPublicKeyDigest(_ ssl: OpaquePointer) -> [UInt8]? {
        guard let certificate = SSL_get1_peer_certificate(ssl) else { return nil }
        defer { X509_free(certificate) }
        guard let key = X509_get0_pubkey(certificate) else { return nil }
        var der: UnsafeMutablePointer<UInt8>?
        let length = i2d_PUBKEY(key, &der)
        guard length > 0, let der else { return nil }
        defer { CRYPTO_free(der, #file, #line) }
        return Digest.of(UnsafeRawBufferPointer(start: der, count: Int(length)), .sha256)
    }

    /// Pops OpenSSL's error queue into one readable line.
    static func lastError() -> String {
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            let text = String(decoding: buffer.prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self)
            // "error:0A000086:SSL routines::certificate verify failed" -> the part after the last colon.
            messages.append(text.split(separator: ":").last.map(String.init) ?? text)
        }
        return messages.isEmpty ? "unknown TLS error" : messages.joined(separator: "; ")
    }
}

/// A TLS context could not be made (bad CA file, OpenSSL failure).
package struct TLSSetupError: Error, Sendable, CustomStringConvertible {
    package let reason: String
    package var description: String { reason }
}
