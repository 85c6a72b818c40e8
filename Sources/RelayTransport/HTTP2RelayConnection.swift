internal import CNghttp2

/// One HTTP/2 connection to a relay (RFC 9113), over a TLS layer that negotiated h2. It carries
/// many CONNECT streams (§8.5), each a byte stream of its own (`HTTP2ConnectStream`).
/// Flow control is manual: a stream's received bytes are acknowledged (WINDOW_UPDATE) only
/// while its reader is not paused, so a slow reader cannot make us buffer without bound.
final class HTTP2RelayConnection: TransportLayerDelegate {
    let hop: HopDescription
    private let lower: TransportLayer
    /// Runs work once the loop's current turn is done (`EventLoop.atEndOfTurn`).
    let atEndOfTurn: (@escaping () -> Void) -> Void
    /// A flush is due at the end of the loop's turn (`flush()`): frames queued until then leave
    /// in one write.
    private var flushScheduled = false
    private(set) var session: OpaquePointer?
    private(set) var streams: [Int32: HTTP2ConnectStream] = [:]
    private var closed = false
    /// True once the relay sent GOAWAY or the connection failed: no new streams.
    private(set) var isDraining = false
    /// Called (on the loop) whenever the last stream ends, and when the connection dies.
    var onIdle: (() -> Void)?
    var onClose: (() -> Void)?
    /// Called at the end of a loop turn in which a stream ended or the relay raised its limit.
    var onStreamAvailable: (() -> Void)?
    /// Called once, when the relay's first SETTINGS arrived (its stream limit is known) or the
    /// connection ended before them.
    var onPeerSettings: (() -> Void)?
    /// `onStreamAvailable` is due at the end of this turn (`streamMayBeAvailable`).
    var availabilityScheduled = false
    /// Streams the relay took when it last refused one (REFUSED_STREAM): no more go to it until
    /// one ends or new SETTINGS arrive, whatever its advertised limit says.
    var refusalCap: Int?
    /// Probes waiting for the relay's PING acknowledgement, by probe id, each with the PING
    /// (by its opaque sequence number) whose ACK answers it.
    private var pingWaiters: [Int: (sequence: UInt64, answer: (Bool) -> Void)] = [:]
    private var nextPingWaiter = 0
    private var pingSequence: UInt64 = 0
    private var outstandingPing: UInt64?
    /// nghttp2's verdict on the relay, from the GOAWAY it sent when it found a connection error.
    fileprivate var libraryError: String?

    /// Large enough that one bulk tunnel is not held to a window per round trip (4 MiB per
    /// stream; 16 MiB for all), small enough that a paused reader holds back little.
    static let streamWindow: Int32 = 4 << 20
    static let connectionWindow: Int32 = 16 << 20
    /// The relay's limit of concurrent streams until its SETTINGS name one.
    static let assumedStreamLimit: UInt32 = 100

    /// `atEndOfTurn` runs queued frames' write once the loop's turn is done (tests over an
    /// in-memory stream may run it at once).
    init(over lower: TransportLayer, hop: HopDescription,
         atEndOfTurn: @escaping (@escaping () -> Void) -> Void) throws(TLSSetupError) {
        self.lower = lower
        self.hop = hop
        self.atEndOfTurn = atEndOfTurn
        var callbacks: OpaquePointer?
        var option: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, nghttp2_option_new(&option) == 0 else {
            throw TLSSetupError(reason: "nghttp2: out of memory")
        }
        defer {
            nghttp2_session_callbacks_del(callbacks)
            nghttp2_option_del(option)
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks, h2OnHeader)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, h2OnFrameReceived)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, h2OnDataChunk)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, h2OnStreamClose)
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, h2OnFrameSent)
        nghttp2_option_set_no_auto_window_update(option, 1)
        // Until the relay's SETTINGS say otherwise, assume the fewest streams RFC 9113 §6.5.2
        // recommends a peer allow, not nghttp2's unlimited default.
        nghttp2_option_set_peer_max_concurrent_streams(option, Self.assumedStreamLimit)
        // The session's user data is this connection, unretained: the connection owns the session.
        let rc = nghttp2_session_client_new2(&session, callbacks, Unmanaged.passUnretained(self).toOpaque(), option)
        guard rc == 0 else { throw TLSSetupError(reason: "nghttp2: \(String(cString: nghttp2_strerror(rc)))") }
        lower.delegate = self
    }

    deinit { nghttp2_session_del(session) }

    /// Sends the connection preface and our SETTINGS.
    func start() {
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: UInt32(Self.streamWindow)),
        ]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
        nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, Self.connectionWindow)
        flush()
    }

    var activeStreams: Int { streams.count }
    /// Frames handed to the layers below that have not left yet (TLS and TCP queues).
    var queuedBytes: Int { lower.queuedBytes }
    var isUsable: Bool { !closed && !isDraining }

    /// A new CONNECT stream to `authority` with this hop's header fields; `connect` sends it.
    func makeStream(authority: String, headers: [(String, String)], nextHop: HopDescription?) -> HTTP2ConnectStream {
        HTTP2ConnectStream(connection: self, authority: authority, headers: headers, nextHop: nextHop)
    }

    // MARK: used by streams

    func submit(_ stream: HTTP2ConnectStream) -> Bool {
        guard isUsable else { return false }
        var fields: [(String, String)] = [(":method", "CONNECT"), (":authority", stream.authority)]
        fields += stream.headers.map { ($0.0.lowercased(), $0.1) }
        let storage = fields.map { (Array($0.0.utf8), Array($0.1.utf8)) }
        var provider = nghttp2_data_provider()
        provider.read_callback = h2ReadStreamData
        let id: Int32 = withNameValues(storage) { pointer, count in
            nghttp2_submit_request(session, nil, pointer, count, &provider, nil)
        }
        guard id > 0 else { return false }
        stream.streamID = id
        streams[id] = stream
        flush()
        return true
    }

    func resume(_ stream: HTTP2ConnectStream) {
        guard stream.streamID > 0, !closed else { return }
        nghttp2_session_resume_data(session, stream.streamID)
        flush()
    }

    func consume(_ stream: HTTP2ConnectStream, count: Int) {
        guard stream.streamID > 0, count > 0, !closed else { return }
        nghttp2_session_consume(session, stream.streamID, count)
        flush()
    }

    func reset(_ stream: HTTP2ConnectStream) {
        guard stream.streamID > 0, !closed, streams[stream.streamID] != nil else { return }
        nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream.streamID, NGHTTP2_CANCEL.rawValue)
        // A request nghttp2 still holds back (the relay lowered its limit) is cancelled in its
        // queue and reported closed only once a stream frees up: it takes no slot from now on.
        if nghttp2_session_find_stream(session, stream.streamID) == nil { forget(stream.streamID) }
        flush()
    }

    /// Sends a PING (or joins the one in flight); `answered` hears true when the relay
    /// acknowledges it, false if the connection ends or `cancelPing` is called with the returned id.
    @discardableResult
    func ping(_ answered: @escaping (Bool) -> Void) -> Int {
        guard !closed else {
            answered(false)
            return -1
        }
        if outstandingPing == nil {
            pingSequence += 1
            outstandingPing = pingSequence
            var opaque = pingSequence.bigEndian
            _ = withUnsafeBytes(of: &opaque) { nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), $0.bindMemory(to: UInt8.self).baseAddress) }
            flush()
        }
        nextPingWaiter += 1
        pingWaiters[nextPingWaiter] = (outstandingPing ?? pingSequence, answered)
        return nextPingWaiter
    }

    /// Answers one probe false (it gave up waiting); others waiting on the same PING go on.
    func cancelPing(_ id: Int) {
        pingWaiters.removeValue(forKey: id)?.answer(false)
    }

    fileprivate func pingAcknowledged(_ sequence: UInt64) {
        if outstandingPing == sequence { outstandingPing = nil }
        for (id, waiter) in pingWaiters where waiter.sequence == sequence {
            pingWaiters[id] = nil
            waiter.answer(true)
        }
    }

    private func failPings() {
        let waiters = pingWaiters.values
        pingWaiters.removeAll()
        for waiter in waiters { waiter.answer(false) }
    }

    /// Ends the connection: GOAWAY, then closes the layers below; open streams fail.
    func close() {
        guard !closed else { return }
        nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, NGHTTP2_NO_ERROR.rawValue, nil, 0)
        writeQueuedFrames(closing: true)
        shutDown(RelayError(hop: hop, cause: .protocolError("relay connection closed")))
    }

    private func shutDown(_ error: RelayError) {
        guard !closed else { return }
        closed = true
        isDraining = true
        lower.close()
        let open = streams.values
        streams.removeAll()
        for stream in open { stream.connectionFailed(error) }
        failPings()
        peerSettingsSettled()
        onClose?()
    }

    /// Sends what nghttp2 has queued at the end of the loop's turn. With twenty tunnels on one
    /// connection, a turn that reads DATA for all of them queues twenty WINDOW_UPDATEs, and a
    /// turn that reads from several tunnels' clients queues as many DATA frames: written as they
    /// came, each was a TLS record and a TCP segment of its own, and the relay's forwarding of
    /// those pieces waited on delayed ACKs (`Benchmarks/run.sh chains`: ~40 ms per request).
    private func flush() {
        guard !closed, !flushScheduled else { return }
        flushScheduled = true
        atEndOfTurn { [weak self] in
            guard let self else { return }
            self.flushScheduled = false
            self.writeQueuedFrames()
        }
    }

    /// Every frame nghttp2 has queued, handed to the layer below in one piece. `closing`: our
    /// own GOAWAY, whose end is ours to report.
    private func writeQueuedFrames(closing: Bool = false) {
        guard !closed, let session else { return }
        var output: [UInt8] = []
        while true {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            if count < 0 {
                shutDown(RelayError(hop: hop, cause: .protocolError("HTTP/2: \(String(cString: nghttp2_strerror(Int32(count))))")))
                return
            }
            guard count > 0, let data else { break }
            output.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
        }
        if !output.isEmpty { lower.send(output) }
        // A connection error (malformed or oversized frame, bad SETTINGS...) does not make
        // mem_recv fail: nghttp2 queues GOAWAY and, once it is sent, wants neither to read nor
        // to write. Fail then, in the turn that read the error, naming the hop and nghttp2's
        // reason, rather than leave tunnels to their timeouts.
        if !closing, !closed, nghttp2_session_want_read(session) == 0, nghttp2_session_want_write(session) == 0 {
            let reason = libraryError.map { "HTTP/2 connection error: \($0)" } ?? "the relay ended the HTTP/2 connection (GOAWAY)"
            shutDown(RelayError(hop: hop, cause: .protocolError(reason)))
        }
    }

    // MARK: TransportLayerDelegate (bytes from the relay)

    func layerDidReceive(_ bytes: [UInt8]) {
        guard !closed else { return }
        let rc = bytes.withUnsafeBufferPointer { nghttp2_session_mem_recv(session, $0.baseAddress, $0.count) }
        if rc < 0 {
            shutDown(RelayError(hop: hop, cause: .protocolError("HTTP/2: \(String(cString: nghttp2_strerror(Int32(rc))))")))
            return
        }
        flush()
    }

    func layerDidReceiveEOF() {
        shutDown(RelayError(hop: hop, cause: .protocolError("relay closed the HTTP/2 connection")))
    }

    func layerDidFail(_ error: RelayError) { shutDown(error) }

    // MARK: nghttp2 callbacks (dispatched from the C functions below)

    fileprivate func stream(_ id: Int32) -> HTTP2ConnectStream? { streams[id] }

    fileprivate func goAway(lastStreamID: Int32, code: UInt32) {
        isDraining = true
        for (id, stream) in streams where id > lastStreamID {
            streams[id] = nil
            stream.refusedUnprocessed(RelayError(hop: hop, cause: .protocolError("relay sent GOAWAY (\(Self.codeName(code))) before the stream started")))
        }
        if streams.isEmpty { onIdle?() }
        streamMayBeAvailable()
    }

    fileprivate func streamClosed(_ id: Int32, code: UInt32) {
        guard let stream = streams.removeValue(forKey: id) else { return }
        if code == NGHTTP2_REFUSED_STREAM.rawValue { refusalCap = streams.count }
        stream.streamClosed(code: code)
        if streams.isEmpty { onIdle?() }
        streamMayBeAvailable()
    }

    /// Drops a stream that will never be sent; the layer above has closed it already.
    private func forget(_ id: Int32) {
        guard streams.removeValue(forKey: id) != nil else { return }
        if streams.isEmpty { onIdle?() }
        streamMayBeAvailable()
    }

    static func codeName(_ code: UInt32) -> String {
        let names: [UInt32: String] = [0: "NO_ERROR", 1: "PROTOCOL_ERROR", 2: "INTERNAL_ERROR", 3: "FLOW_CONTROL_ERROR",
                                       4: "SETTINGS_TIMEOUT", 5: "STREAM_CLOSED", 6: "FRAME_SIZE_ERROR", 7: "REFUSED_STREAM",
                                       8: "CANCEL", 9: "COMPRESSION_ERROR", 0xa: "CONNECT_ERROR", 0xb: "ENHANCE_YOUR_CALM",
                                       0xc: "INADEQUATE_SECURITY", 0xd: "HTTP_1_1_REQUIRED"]
        return "\(names[code] ?? "error") 0x\(String(code, radix: 16))"
    }
}

/// Calls `body` with a C array of nghttp2_nv pointing into one packed copy of `fields` (the C library
/// copies them in turn during the call). Internal for the layer tests' nghttp2 server.
func withNameValues<R>(_ fields: [([UInt8], [UInt8])], _ body: (UnsafePointer<nghttp2_nv>, Int) -> R) -> R {
    withPackedHeaderFields(fields) { base, spans in
        let values = spans.map {
            nghttp2_nv(name: base + $0.name.lowerBound, value: base + $0.value.lowerBound, namelen: $0.name.count,
                       valuelen: $0.value.count, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
        }
        return values.withUnsafeBufferPointer { body($0.baseAddress!, $0.count) }
    }
}

// nghttp2's C callbacks. `user` is the HTTP2RelayConnection, unretained (it owns the session).
private func connection(_ user: UnsafeMutableRawPointer?) -> HTTP2RelayConnection {
    Unmanaged<HTTP2RelayConnection>.fromOpaque(user!).takeUnretainedValue()
}

private func h2OnHeader(_ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ name: UnsafePointer<UInt8>?, _ nameLength: Int,
                        _ value: UnsafePointer<UInt8>?, _ valueLength: Int, _ flags: UInt8, _ user: UnsafeMutableRawPointer?) -> Int32 {
    guard let frame, let name, let value, let stream = connection(user).stream(frame.pointee.hd.stream_id) else { return 0 }
    let headerName = String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self)
    let text = String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self)
    if headerName == ":status" {
        stream.receivedStatus(Int(text) ?? 0)
    } else if headerName == "alt-svc" {
        stream.receivedAltSvc(text)
    } else if headerName == "proxy-authenticate" {
        stream.receivedProxyAuthenticate(text)
    }
    return 0
}

private func h2OnFrameReceived(_ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ user: UnsafeMutableRawPointer?) -> Int32 {
    guard let frame else { return 0 }
    let owner = connection(user)
    let endsStream = frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
    switch UInt32(frame.pointee.hd.type) {
    case NGHTTP2_HEADERS.rawValue:
        owner.stream(frame.pointee.hd.stream_id)?.headersComplete()
        if endsStream { owner.stream(frame.pointee.hd.stream_id)?.receivedEnd() }
    case NGHTTP2_DATA.rawValue where endsStream:
        owner.stream(frame.pointee.hd.stream_id)?.receivedEnd()
    case NGHTTP2_SETTINGS.rawValue where frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0:
        owner.receivedSettings()
    case NGHTTP2_GOAWAY.rawValue:
        owner.goAway(lastStreamID: frame.pointee.goaway.last_stream_id, code: frame.pointee.goaway.error_code)
    case NGHTTP2_PING.rawValue where frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0:
        let sequence = withUnsafeBytes(of: frame.pointee.ping.opaque_data) { $0.loadUnaligned(as: UInt64.self) }
        owner.pingAcknowledged(UInt64(bigEndian: sequence))
    default:
        break
    }
    return 0
}

private func h2OnDataChunk(_ session: OpaquePointer?, _ flags: UInt8, _ streamID: Int32, _ data: UnsafePointer<UInt8>?,
                           _ length: Int, _ user: UnsafeMutableRawPointer?) -> Int32 {
    guard let data, let stream = connection(user).stream(streamID) else { return 0 }
    stream.receivedData(Array(UnsafeBufferPointer(start: data, count: length)))
    return 0
}

/// Our own GOAWAY with an error code is nghttp2 rejecting the relay: keep its code and reason.
private func h2OnFrameSent(_ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ user: UnsafeMutableRawPointer?) -> Int32 {
    guard let frame, UInt32(frame.pointee.hd.type) == NGHTTP2_GOAWAY.rawValue else { return 0 }
    let goaway = frame.pointee.goaway
    guard goaway.error_code != NGHTTP2_NO_ERROR.rawValue else { return 0 }
    var reason = HTTP2RelayConnection.codeName(goaway.error_code)
    if let data = goaway.opaque_data, goaway.opaque_data_len > 0 {
        reason += ": " + String(decoding: UnsafeBufferPointer(start: data, count: goaway.opaque_data_len), as: UTF8.self)
    }
    connection(user).libraryError = reason
    return 0
}

private func h2OnStreamClose(_ session: OpaquePointer?, _ streamID: Int32, _ code: UInt32, _ user: UnsafeMutableRawPointer?) -> Int32 {
    connection(user).streamClosed(streamID, code: code)
    return 0
}

private func h2ReadStreamData(_ session: OpaquePointer?, _ streamID: Int32, _ buffer: UnsafeMutablePointer<UInt8>?, _ length: Int,
                              _ flags: UnsafeMutablePointer<UInt32>?, _ source: UnsafeMutablePointer<nghttp2_data_source>?,
                              _ user: UnsafeMutableRawPointer?) -> Int {
    guard let buffer, let stream = connection(user).stream(streamID) else { return Int(NGHTTP2_ERR_DEFERRED.rawValue) }
    let count = stream.takeOutgoing(into: buffer, capacity: length)
    return count > 0 ? count : Int(NGHTTP2_ERR_DEFERRED.rawValue)
}
