internal import CNgtcp2

/// Turns the ways a QUIC connection ends into errors naming the hop: the relay's
/// CONNECTION_CLOSE (transport, TLS alert or application code) and ngtcp2's read failures.
enum QUICCloseReason {
    /// The relay sent CONNECTION_CLOSE.
    static func relayClosed(_ conn: OpaquePointer, hop: HopDescription, handshakeDone: Bool) -> RelayError {
        var close = ngtcp2_connection_close_error()
        ngtcp2_conn_get_connection_close_error(conn, &close)
        let reason = close.reasonlen > 0 && close.reason != nil
            ? ": " + String(decoding: UnsafeBufferPointer(start: close.reason, count: close.reasonlen), as: UTF8.self) : ""
        let code = close.error_code
        if close.type == NGTCP2_CONNECTION_CLOSE_ERROR_CODE_TYPE_TRANSPORT, (0x100...0x1ff).contains(code) {
            return RelayError(hop: hop, cause: .tls("the relay sent TLS alert \(code - 0x100) (\(alertName(UInt8(code - 0x100))))\(reason)"))
        }
        let what = close.type == NGTCP2_CONNECTION_CLOSE_ERROR_CODE_TYPE_APPLICATION
            ? HTTP3ErrorCode.name(code) : "transport error 0x\(String(code, radix: 16))"
        if !handshakeDone {
            return RelayError(hop: hop, cause: .tls("the relay closed the connection during the handshake (\(what))\(reason)"))
        }
        return RelayError(hop: hop, cause: .protocolError("the relay closed the QUIC connection (\(what))\(reason)"))
    }

    /// ngtcp2 failed to process a packet from the relay.
    static func readFailed(_ rc: Int32, tls: QUICTLSSession, hop: HopDescription, handshakeDone: Bool) -> RelayError {
        let text = String(cString: ngtcp2_strerror(rc))
        guard !handshakeDone else { return RelayError(hop: hop, cause: .protocolError("QUIC: \(text)")) }
        return RelayError(hop: hop, cause: .tls(tls.failureReason(fallback: "QUIC handshake: \(text)")))
    }

    static func alertName(_ alert: UInt8) -> String {
        [40: "handshake_failure", 42: "bad_certificate", 43: "unsupported_certificate", 45: "certificate_expired",
         46: "certificate_unknown", 48: "unknown_ca", 50: "decode_error", 51: "decrypt_error", 70: "protocol_version",
         80: "internal_error", 109: "missing_extension", 110: "unsupported_extension", 112: "unrecognized_name",
         116: "certificate_required", 120: "no_application_protocol"][alert] ?? "alert"
    }
}
