import CNghttp3
import XCTest
@testable import RelayTransport

/// A real nghttp3 server connection run in-process: the relay end of a `MemoryQUIC`. It records
/// each request stream's fields, data and end, answers CONNECTs as the test says and sends what
/// the test gives it; nghttp3's own request checks apply. `MemoryQUIC` carries its stream bytes.
/// Test thread only.
final class NGHTTP3TestServer {
    final class Stream {
        var fields: [String] = []
        var data: [UInt8] = []
        /// The client ended its side (FIN).
        var ended = false
        /// nghttp3 closed the stream, with this code.
        var closeCode: UInt64?
        /// What the server sends on the stream, kept until acknowledged.
        let outgoing = HTTP3SendBuffer()
        var finishing = false
    }

    private(set) var streams: [Int64: Stream] = [:]
    private var conn: OpaquePointer?

    /// - Parameter connectProtocol: SETTINGS_ENABLE_CONNECT_PROTOCOL (extended CONNECT, for CONNECT-UDP).
    init(connectProtocol: Bool = false) {
        var callbacks = nghttp3_callbacks()
        callbacks.recv_header = { _, id, _, name, value, _, user, _ in
            let text = { (buffer: OpaquePointer?) -> String in
                let vec = nghttp3_rcbuf_get_buf(buffer)
                return String(decoding: UnsafeBufferPointer(start: vec.base, count: vec.len), as: UTF8.self)
            }
            server(user).stream(id).fields.append("\(text(name)): \(text(value))")
            return 0
        }
        callbacks.recv_data = { _, id, data, length, user, _ in
            server(user).stream(id).data += UnsafeBufferPointer(start: data, count: length)
            return 0
        }
        callbacks.end_stream = { _, id, user, _ in
            server(user).stream(id).ended = true
            return 0
        }
        callbacks.stream_close = { _, id, code, user, _ in
            server(user).stream(id).closeCode = code
            return 0
        }
        callbacks.acked_stream_data = { _, id, count, user, _ in
            server(user).streams[id]?.outgoing.acknowledge(Int(count))
            return 0
        }
        var settings = nghttp3_settings()
        rf_nghttp3_settings_default(&settings)
        settings.enable_connect_protocol = connectProtocol ? 1 : 0
        let rc = nghttp3_conn_server_new_versioned(&conn, NGHTTP3_CALLBACKS_VERSION, &callbacks, NGHTTP3_SETTINGS_VERSION, &settings,
                                                   nghttp3_mem_default(), Unmanaged.passUnretained(self).toOpaque())
        XCTAssertEqual(rc, 0, "nghttp3_conn_server_new")
        // The server's unidirectional streams: control, QPACK encoder and decoder.
        XCTAssertEqual(nghttp3_conn_bind_control_stream(conn, 3), 0)
        XCTAssertEqual(nghttp3_conn_bind_qpack_streams(conn, 7, 11), 0)
    }

    deinit { nghttp3_conn_del(conn) }

    fileprivate func stream(_ id: Int64) -> Stream {
        if let stream = streams[id] { return stream }
        let stream = Stream()
        streams[id] = stream
        return stream
    }

    /// The request fields of stream `id`, as "name: value", in order.
    func fields(_ id: Int64) -> [String] { streams[id]?.fields ?? [] }

    // MARK: what MemoryQUIC carries

    /// Bytes from the client on stream `id`.
    func receive(_ bytes: [UInt8], fin: Bool, on id: Int64) {
        let consumed = bytes.withUnsafeBufferPointer { nghttp3_conn_read_stream(conn, id, $0.baseAddress, $0.count, fin ? 1 : 0) }
        XCTAssertGreaterThanOrEqual(consumed, 0, "the server's nghttp3 rejected our bytes on stream \(id): \(consumed)")
    }

    /// The next stream data the server wants to send (nil: nothing now).
    func nextOutput() -> (id: Int64, fin: Bool, bytes: [UInt8])? {
        var vectors = [nghttp3_vec](repeating: nghttp3_vec(), count: 16)
        var id: Int64 = -1
        var fin: Int32 = 0
        let count = nghttp3_conn_writev_stream(conn, &id, &fin, &vectors, vectors.count)
        XCTAssertGreaterThanOrEqual(count, 0, "nghttp3_conn_writev_stream")
        guard count >= 0, id >= 0 else { return nil }
        let bytes = vectors[0..<count].flatMap { Array(UnsafeBufferPointer(start: $0.base, count: $0.len)) }
        return (id, fin != 0, bytes)
    }

    func wrote(_ count: Int, on id: Int64) { XCTAssertEqual(nghttp3_conn_add_write_offset(conn, id, count), 0) }
    func acknowledged(_ count: Int, on id: Int64) { XCTAssertEqual(nghttp3_conn_add_ack_offset(conn, id, UInt64(count)), 0) }
    func block(_ id: Int64) { nghttp3_conn_block_stream(conn, id) }
    func unblock(_ id: Int64) { _ = nghttp3_conn_unblock_stream(conn, id) }
    func shutDownReading(_ id: Int64) { _ = nghttp3_conn_shutdown_stream_read(conn, id) }
    func shutDownWriting(_ id: Int64) { nghttp3_conn_shutdown_stream_write(conn, id) }
    func closeStream(_ id: Int64, code: UInt64) { _ = nghttp3_conn_close_stream(conn, id, code) }

    // MARK: what the test makes the server do

    /// Answers stream `id` with `status`; a 2xx keeps the stream open for data, others end it.
    func answer(_ id: Int64, status: Int, fields extra: [(String, String)] = []) {
        let fields = [(":status", String(status))] + extra
        var reader = nghttp3_data_reader(read_data: serverReadData)
        let opens = (200..<300).contains(status)
        let rc = withHTTP3NameValues(fields) { values, count in
            opens ? nghttp3_conn_submit_response(conn, id, values, count, &reader) : nghttp3_conn_submit_response(conn, id, values, count, nil)
        }
        XCTAssertEqual(rc, 0, "nghttp3_conn_submit_response")
    }

    /// Queues tunnel bytes on stream `id`.
    func send(_ bytes: [UInt8], on id: Int64) {
        stream(id).outgoing.append(bytes)
        _ = nghttp3_conn_resume_stream(conn, id)
    }

    /// Ends the server's side of stream `id` (FIN after what is queued).
    func finish(_ id: Int64) {
        stream(id).finishing = true
        _ = nghttp3_conn_resume_stream(conn, id)
    }

    /// GOAWAY: streams from the next one on will not be processed.
    func goAway() { XCTAssertEqual(nghttp3_conn_shutdown(conn), 0) }

    fileprivate func handOut(_ id: Int64, into vectors: UnsafeMutablePointer<nghttp3_vec>, capacity: Int,
                             flags: UnsafeMutablePointer<UInt32>?) -> nghttp3_ssize {
        guard let stream = streams[id] else { return nghttp3_ssize(NGHTTP3_ERR_WOULDBLOCK) }
        let buffers = stream.outgoing.handOut(limit: capacity)
        if buffers.isEmpty && !stream.finishing { return nghttp3_ssize(NGHTTP3_ERR_WOULDBLOCK) }
        for (index, buffer) in buffers.enumerated() {
            vectors[index] = nghttp3_vec(base: UnsafeMutablePointer(mutating: buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)),
                                         len: buffer.count)
        }
        if stream.finishing && !stream.outgoing.hasUnsent { flags?.pointee |= UInt32(NGHTTP3_DATA_FLAG_EOF) }
        return buffers.count
    }
}

private func server(_ user: UnsafeMutableRawPointer?) -> NGHTTP3TestServer {
    Unmanaged<NGHTTP3TestServer>.fromOpaque(user!).takeUnretainedValue()
}

private func serverReadData(_ conn: OpaquePointer?, _ id: Int64, _ vectors: UnsafeMutablePointer<nghttp3_vec>?, _ capacity: Int,
                            _ flags: UnsafeMutablePointer<UInt32>?, _ user: UnsafeMutableRawPointer?,
                            _ streamUser: UnsafeMutableRawPointer?) -> nghttp3_ssize {
    guard let vectors else { return nghttp3_ssize(NGHTTP3_ERR_WOULDBLOCK) }
    return server(user).handOut(id, into: vectors, capacity: capacity, flags: flags)
}
