internal import CNgtcp2

/// Stream operations for the application on top (HTTP/3). Loop thread. Credit and shutdowns only
/// queue frames, so they are safe inside ngtcp2's callbacks; `flush` sends them.
extension QUICConnection {
    /// A new bidirectional stream, or nil while the relay allows no more (wait for `quicMoreStreamsAllowed`).
    func openBidirectionalStream() -> Int64? {
        var id: Int64 = -1
        guard let conn, !closed, ngtcp2_conn_open_bidi_stream(conn, &id, nil) == 0 else { return nil }
        return id
    }

    var bidirectionalStreamsLeft: Int {
        guard let conn, !closed else { return 0 }
        return Int(ngtcp2_conn_get_streams_bidi_left(conn))
    }

    func openUnidirectionalStream() -> Int64? {
        var id: Int64 = -1
        guard let conn, !closed, ngtcp2_conn_open_uni_stream(conn, &id, nil) == 0 else { return nil }
        return id
    }

    /// Gives the relay `count` more bytes of credit on a stream and on the connection.
    func extendCredit(stream id: Int64, by count: Int) {
        guard let conn, !closed, count > 0 else { return }
        _ = ngtcp2_conn_extend_max_stream_offset(conn, id, UInt64(count))
        ngtcp2_conn_extend_max_offset(conn, UInt64(count))
    }

    /// Resets a stream in both directions (RESET_STREAM and STOP_SENDING).
    func abortStream(_ id: Int64, applicationError code: UInt64) {
        guard let conn, !closed else { return }
        _ = ngtcp2_conn_shutdown_stream(conn, id, code)
    }

    /// Asks the relay to stop sending on a stream (STOP_SENDING).
    func stopReading(stream id: Int64, applicationError code: UInt64) {
        guard let conn, !closed else { return }
        _ = ngtcp2_conn_shutdown_stream_read(conn, id, code)
    }

    /// Abandons our sending side of a stream (RESET_STREAM).
    func stopWriting(stream id: Int64, applicationError code: UInt64) {
        guard let conn, !closed else { return }
        _ = ngtcp2_conn_shutdown_stream_write(conn, id, code)
    }
}
