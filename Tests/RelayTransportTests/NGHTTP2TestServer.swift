import CNghttp2
@testable import RelayTransport
import XCTest

/// A real nghttp2 server session run in-process: the far end of a `MemoryLayer` under an
/// `HTTP2RelayConnection`. It records each stream's request fields, data and close code, answers
/// CONNECTs as the test says, and sends what the test gives it. nghttp2's own checks apply (a
/// CONNECT without `:authority`, or with `:path`, is a protocol error). Test thread only.
final class NGHTTP2TestServer: MemoryPeer {
    struct Stream {
        var fields: [(name: String, value: String)] = []
        var data: [UInt8] = []
        /// The stream's close code once nghttp2 closed it (0: NO_ERROR).
        var closeCode: UInt32?
        /// Bytes waiting to be sent on this stream (held back by the client's window).
        var outgoing: [UInt8] = []
        var finishing = false
    }

    fileprivate(set) var streams: [Int32: Stream] = [:]
    private var session: OpaquePointer?
    /// Bytes of DATA received while the stream is not consumed (with `manualWindow`).
    fileprivate let manualWindow: Bool
    /// A GOAWAY from the client arrived.
    fileprivate(set) var receivedGoAway = false

    /// - Parameters:
    ///   - initialWindow: the stream window the server grants the client (SETTINGS); nil: default.
    ///   - manualWindow: no automatic WINDOW_UPDATE; the test sends them (`openWindow`).
    init(initialWindow: UInt32? = nil, manualWindow: Bool = false) {
        self.manualWindow = manualWindow
        var callbacks: OpaquePointer?
        var option: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        nghttp2_option_new(&option)
        defer {
            nghttp2_session_callbacks_del(callbacks)
            nghttp2_option_del(option)
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameLength, value, valueLength, _, user in
            let field = (String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self),
                         String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self))
            server(user).streams[frame!.pointee.hd.stream_id, default: Stream()].fields.append(field)
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, id, data, length, user in
            server(user).streams[id, default: Stream()].data += UnsafeBufferPointer(start: data, count: length)
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, id, code, user in
            server(user).streams[id, default: Stream()].closeCode = code
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, user in
            if UInt32(frame!.pointee.hd.type) == NGHTTP2_GOAWAY.rawValue { server(user).receivedGoAway = true }
            return 0
        }
        if manualWindow { nghttp2_option_set_no_auto_window_update(option, 1) }
        nghttp2_session_server_new2(&session, callbacks, Unmanaged.passUnretained(self).toOpaque(), option)
        var settings: [nghttp2_settings_entry] = []
        if let initialWindow {
            settings.append(nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: initialWindow))
        }
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), settings, settings.count)
    }

    deinit { nghttp2_session_del(session) }

    // MARK: MemoryPeer

    func receive(_ bytes: [UInt8]) {
        let rc = bytes.withUnsafeBufferPointer { nghttp2_session_mem_recv(session, $0.baseAddress, $0.count) }
        XCTAssertGreaterThanOrEqual(rc, 0, "the server's nghttp2 rejected our bytes: \(String(cString: nghttp2_strerror(Int32(rc))))")
    }

    func takeOutput() -> [UInt8] {
        var output: [UInt8] = []
        while true {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            guard count > 0, let data else { return output }
            output += UnsafeBufferPointer(start: data, count: count)
        }
    }

    // MARK: what the test makes the server do

    /// The request fields of stream `id`, in order.
    func fields(_ id: Int32) -> [String] { (streams[id]?.fields ?? []).map { "\($0.name): \($0.value)" } }

    /// Answers stream `id` with `status`; a 2xx keeps the stream open for data, others end it.
    func answer(_ id: Int32, status: Int, fields extra: [(String, String)] = []) {
        let fields = [(":status", String(status))] + extra
        var provider = nghttp2_data_provider()
        provider.read_callback = readStreamData
        let opens = (200..<300).contains(status)
        let rc = withNameValues(fields.map { (Array($0.0.utf8), Array($0.1.utf8)) }) { values, count in
            opens ? nghttp2_submit_response(session, id, values, count, &provider) : nghttp2_submit_response(session, id, values, count, nil)
        }
        XCTAssertEqual(rc, 0, "nghttp2_submit_response")
    }

    /// Queues tunnel bytes on stream `id`.
    func send(_ bytes: [UInt8], on id: Int32) {
        streams[id, default: Stream()].outgoing += bytes
        nghttp2_session_resume_data(session, id)
    }

    /// Ends our side of stream `id` (END_STREAM after what is queued).
    func finish(_ id: Int32) {
        streams[id, default: Stream()].finishing = true
        nghttp2_session_resume_data(session, id)
    }

    /// Bytes queued on stream `id` that the client's window has not let out yet.
    func unsent(_ id: Int32) -> Int { streams[id]?.outgoing.count ?? 0 }

    func reset(_ id: Int32, code: nghttp2_error_code) {
        nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, code.rawValue)
    }

    func goAway(lastStreamID: Int32, code: nghttp2_error_code = NGHTTP2_NO_ERROR) {
        nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), lastStreamID, code.rawValue, nil, 0)
    }

    /// Grants the client `count` more bytes on stream `id` and on the connection (WINDOW_UPDATE).
    func openWindow(_ id: Int32, by count: Int32) {
        nghttp2_submit_window_update(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, count)
        nghttp2_submit_window_update(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, count)
    }

    /// The client's send window on stream `id` as this server sees it.
    func clientWindow(_ id: Int32) -> Int32 { nghttp2_session_get_stream_effective_local_window_size(session, id) }

    fileprivate func take(_ id: Int32, upTo length: Int) -> (bytes: ArraySlice<UInt8>, end: Bool)? {
        guard var stream = streams[id] else { return nil }
        let count = min(length, stream.outgoing.count)
        let bytes = stream.outgoing.prefix(count)
        stream.outgoing.removeFirst(count)
        streams[id] = stream
        return (bytes, stream.outgoing.isEmpty && stream.finishing)
    }
}

private func server(_ user: UnsafeMutableRawPointer?) -> NGHTTP2TestServer {
    Unmanaged<NGHTTP2TestServer>.fromOpaque(user!).takeUnretainedValue()
}

private func readStreamData(_ session: OpaquePointer?, _ id: Int32, _ buffer: UnsafeMutablePointer<UInt8>?, _ length: Int,
                            _ flags: UnsafeMutablePointer<UInt32>?, _ source: UnsafeMutablePointer<nghttp2_data_source>?,
                            _ user: UnsafeMutableRawPointer?) -> Int {
    guard let taken = server(user).take(id, upTo: length), let buffer else { return Int(NGHTTP2_ERR_DEFERRED.rawValue) }
    if taken.bytes.isEmpty && !taken.end { return Int(NGHTTP2_ERR_DEFERRED.rawValue) }
    taken.bytes.withUnsafeBufferPointer { if let base = $0.baseAddress { buffer.update(from: base, count: $0.count) } }
    if taken.end { flags?.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
    return taken.bytes.count
}
