internal import COpenSSL

/// How a TLS layer checks its peer.
public struct TLSTrust: Sendable, Hashable {
    /// PEM file of trusted CAs; nil means the system store.
    public var caFile: String?

    public init(caFile: String? = nil) { self.caFile = caFile }

    public static let system = TLSTrust()
}

/// Owns one OpenSSL `SSL_CTX`: TLS 1.2+, peer verification on, trust from a CA file or the system.
final class TLSContext {
    let pointer: OpaquePointer

    init(trust: TLSTrust) throws(TLSSetupError) {
        guard let ctx = SSL_CTX_new(TLS_client_method()) else { throw TLSSetupError(reason: TLSContext.lastError()) }
        pointer = ctx
        _ = rf_SSL_CTX_set_min_proto_version(ctx, rf_TLS1_2_VERSION())
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
        _ = rf_SSL_CTX_set_mode(ctx, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
        // Tickets and sessions stay in memory, owned by this context; nothing goes to disk.
        _ = rf_SSL_CTX_set_session_cache_mode(ctx, Int(SSL_SESS_CACHE_OFF))
        let loaded: Int32
        if let caFile = trust.caFile {
            loaded = SSL_CTX_load_verify_locations(ctx, caFile, nil)
        } else {
            loaded = SSL_CTX_set_default_verify_paths(ctx)
        }
        if loaded != 1 {
            throw TLSSetupError(reason: "cannot load CA \(trust.caFile ?? "system store"): \(TLSContext.lastError())")
        }
    }

    deinit { SSL_CTX_free(pointer) }

    /// Pops OpenSSL's error queue into one readable line.
    static func lastError() -> String {
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            let text = String(cString: buffer)
            // "error:0A000086:SSL routines::certificate verify failed" -> the part after the last colon.
            messages.append(text.split(separator: ":").last.map(String.init) ?? text)
        }
        return messages.isEmpty ? "unknown TLS error" : messages.joined(separator: "; ")
    }
}

/// A TLS context could not be made (bad CA file, OpenSSL failure).
public struct TLSSetupError: Error, Sendable, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }
}
