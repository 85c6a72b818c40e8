internal import COpenSSL
internal import CCurl

/// Whether an origin's TLS stream ended with its close_notify alert, for the bodies libcurl reads
/// itself from the origin's TLS (direct routes and its own proxy, `CurlRoute.libcurlSpeaksOriginTLS`):
/// libcurl takes a stream cut without the alert for the end of a body that lasts until the
/// connection closes, so a cut would pass for a whole body. Every TLS context libcurl sets up on
/// those routes reports the alerts it reads;
/// a transfer expecting such a body attaches a flag to its origin's TLS object and reads it at
/// the end. The flag is shared by the TLS object (released when OpenSSL frees it) and the
/// transfer, so neither outlives the other's reference.
final class CloseNotifyFlag: @unchecked Sendable {  // set and read on the curl thread only
    var received = false

    /// The flag of `ssl` (libcurl's origin TLS object), attached on first use.
    static func attached(to ssl: OpaquePointer) -> CloseNotifyFlag {
        if let existing = SSL_get_ex_data(ssl, index) { return Unmanaged<CloseNotifyFlag>.fromOpaque(existing).takeUnretainedValue() }
        let flag = CloseNotifyFlag()
        _ = SSL_set_ex_data(ssl, index, Unmanaged.passRetained(flag).toOpaque())  // the TLS object's reference
        return flag
    }

    /// OpenSSL's slot for the flag in every TLS object; its free callback drops the TLS object's reference.
    static let index: Int32 = CRYPTO_get_ex_new_index(CRYPTO_EX_INDEX_SSL, 0, nil, nil, nil, { _, pointer, _, _, _, _ in
        if let pointer { Unmanaged<CloseNotifyFlag>.fromOpaque(pointer).release() }
    })
}

/// libcurl's CURLOPT_SSL_CTX_FUNCTION: every TLS object of the context reports alerts it reads.
func curlWatchTLSContext(_ curl: UnsafeMutableRawPointer?, _ context: UnsafeMutableRawPointer?, _ user: UnsafeMutableRawPointer?) -> CURLcode {
    guard let context else { return CURLE_OK }
    _ = CloseNotifyFlag.index  // made before any TLS object needs it
    SSL_CTX_set_info_callback(OpaquePointer(context)) { ssl, event, value in
        // SSL_CB_READ_ALERT (0x4004); the value is level << 8 | description, close_notify is 0.
        guard let ssl, event & 0x4004 == 0x4004, value & 0xFF == 0,
              let pointer = SSL_get_ex_data(ssl, CloseNotifyFlag.index) else { return }
        Unmanaged<CloseNotifyFlag>.fromOpaque(pointer).takeUnretainedValue().received = true
    }
    return CURLE_OK
}
