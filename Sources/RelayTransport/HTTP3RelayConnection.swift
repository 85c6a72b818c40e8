internal import CNghttp3

/// One HTTP/3 connection to a relay (RFC 9114): nghttp3 over a `QUICConnection` that
/// negotiated h3. It carries many CONNECT streams, each a byte stream of its own
/// (`HTTP3ConnectStream`); to an origin, the same connection carries request streams
/// (`HTTP3RequestStream`). Flow control is manual, as for HTTP/2: received tunnel bytes are
/// credited back only while the stream's reader is not paused. Events for the layers above are
/// queued while ngtcp2 or nghttp3 run and delivered when they have returned (`post`).
/// Owns the nghttp3 connection (freed in deinit) and the QUIC connection. Loop thread only.
final class HTTP3RelayConnection: QUICApplication {
    let hop: HopDescription
    let quic: QUICStreamTransport
    private var http3: OpaquePointer?  // nghttp3_conn
    private var streams: [Int64: any HTTP3StreamHandler] = [:]
    private var waitingForStreamID: [any HTTP3StreamHandler] = []
    private var events: [() -> Void] = []
    private var delivering = false
    private var closed = false
    /// True once the relay sent GOAWAY or the connection failed: no new streams.
    private(set) var isDraining = false
    /// Called (on the loop) whenever the last tunnel ends, and when the connection dies.
    var onIdle: (() -> Void)?
    var onClose: (() -> Void)?
    /// Called when the relay allows more streams (MAX_STREAMS) or the connection drains.
    var onStreamAvailable: (() -> Void)?

    /// `path` carries the QUIC packets: nil for UDP to the relay, or a CONNECT-UDP stream through the hop before.
    convenience init(loop: EventLoop, relay: RelayEndpoint, hop: HopDescription, handshakeTimeout: Double = 10,
                     path: QUICDatagramPath? = nil, resolver: HostResolver? = nil) throws(TLSSetupError) {
        self.init(quic: try QUICConnection(loop: loop, host: relay.host, port: relay.port, trust: relay.trust, alpn: "h3", hop: hop,
                                           handshakeTimeout: handshakeTimeout, path: path, resolver: resolver), hop: hop)
    }

    /// HTTP/3 over `quic`, which this connection owns from now on.
    init(quic: QUICStreamTransport, hop: HopDescription) {
        self.hop = hop
        self.quic = quic
        quic.application = self
    }

    deinit { nghttp3_conn_del(http3) }

    /// Runs the QUIC handshake; HTTP/3's control and QPACK streams open as it completes.
    func connect(_ completion: @escaping (Result<Void, RelayError>) -> Void) {
        quic.connect { [self] result in
            if case .failure = result {
                closed = true
                isDraining = true
            }
            completion(result)
        }
    }

    /// Opens HTTP/3's control and QPACK streams (inside ngtcp2's handshake callback: the relay's
    /// SETTINGS and QPACK streams may arrive in the very packet that completed it).
    func quicHandshakeCompleted() throws(RelayError) {
        var callbacks = HTTP3Callbacks.make()
        var settings = nghttp3_settings()
        rf_nghttp3_settings_default(&settings)
        // The connection's user data is this object, unretained: it owns the nghttp3 connection.
        let rc = rf_nghttp3_conn_client_new(&http3, &callbacks, &settings, Unmanaged.passUnretained(self).toOpaque())
        guard rc == 0 else { throw RelayError(hop: hop, cause: .protocolError("nghttp3: \(String(cString: nghttp3_strerror(rc)))")) }
        guard let control = quic.openUnidirectionalStream(), let encoder = quic.openUnidirectionalStream(),
              let decoder = quic.openUnidirectionalStream() else {
            throw RelayError(hop: hop, cause: .protocolError("the relay allows too few unidirectional QUIC streams for HTTP/3"))
        }
        try check(nghttp3_conn_bind_control_stream(http3, control))
        try check(nghttp3_conn_bind_qpack_streams(http3, encoder, decoder))
    }

    var activeStreams: Int { streams.values.filter { !$0.ended }.count + waitingForStreamID.count }
    var isUsable: Bool { !closed && !isDraining && http3 != nil }
    /// One more stream opens at once, within the relay's MAX_STREAMS (RFC 9000 §4.6): a stream
    /// beyond waits on this connection until the relay allows more, which for long-lived tunnels
    /// is only when one ends, while another connection could carry it.
    var hasFreeStream: Bool { isUsable && waitingForStreamID.isEmpty && quic.bidirectionalStreamsLeft > 0 }

    /// A new CONNECT stream to `authority` with this hop's header fields; `connect` sends it.
    func makeStream(authority: String, headers: [(String, String)], nextHop: HopDescription?) -> HTTP3ConnectStream {
        HTTP3ConnectStream(connection: self, authority: authority, headers: headers, nextHop: nextHop)
    }

    /// Takes no new tunnels from now on; open ones go on. For a connection a tunnel timed out
    /// on: the relay may be gone without a word.
    func retire() {
        guard !isDraining else { return }
        isDraining = true
        post { [self] in
            if activeStreams == 0 { onIdle?() }
            onStreamAvailable?()
        }
    }

    /// Ends the connection: CONNECTION_CLOSE (H3_NO_ERROR); open tunnels fail.
    func close() {
        guard !closed else { return }
        quic.close(applicationError: HTTP3ErrorCode.noError)
        shutDown(RelayError(hop: hop, cause: .protocolError("relay connection closed")))
    }

    // MARK: used by streams

    /// Queues an event for the layers above; it runs now unless ngtcp2 is running or events are being delivered.
    func post(_ event: @escaping () -> Void) {
        events.append(event)
        if !quic.isProcessing { deliverEvents() }
    }

    func submit(_ stream: any HTTP3StreamHandler) -> Bool {
        guard isUsable else { return false }
        guard let id = quic.openBidirectionalStream() else {
            waitingForStreamID.append(stream)  // the relay's stream limit: retried when it grows
            return true
        }
        return submitRequest(stream, on: id)
    }

    private func submitRequest(_ stream: any HTTP3StreamHandler, on id: Int64) -> Bool {
        let fields = stream.pseudoHeaders + stream.headers.map { ($0.0.lowercased(), $0.1) }
        var reader = nghttp3_data_reader(read_data: h3ReadData)
        // Without content the request's stream ends with its header block (no data reader).
        let rc = withHTTP3NameValues(fields) { stream.sendsContent ? nghttp3_conn_submit_request(http3, id, $0, $1, &reader, nil)
                                                                   : nghttp3_conn_submit_request(http3, id, $0, $1, nil, nil) }
        guard rc == 0 else {
            quic.abortStream(id, applicationError: HTTP3ErrorCode.internalError)
            return false
        }
        stream.streamID = id
        streams[id] = stream
        quic.flush()
        return true
    }

    func resume(_ stream: any HTTP3StreamHandler) {
        guard stream.streamID >= 0, !closed, let http3 else { return }
        _ = nghttp3_conn_resume_stream(http3, stream.streamID)
        quic.flush()
    }

    func credit(_ stream: any HTTP3StreamHandler, count: Int) {
        guard stream.streamID >= 0, !closed else { return }
        quic.extendCredit(stream: stream.streamID, by: count)
        quic.flush()
    }

    /// Cancels a stream in both directions (H3_REQUEST_CANCELLED).
    func reset(_ stream: any HTTP3StreamHandler) {
        if let index = waitingForStreamID.firstIndex(where: { $0 === stream }) {
            waitingForStreamID.remove(at: index)
        }
        guard stream.streamID >= 0, !stream.resetSent, !closed, let http3, streams[stream.streamID] != nil else {
            if activeStreams == 0 { onIdle?() }
            return
        }
        stream.resetSent = true
        guard !quic.isProcessing else {
            post { [self] in
                stream.resetSent = false
                reset(stream)
            }
            return
        }
        nghttp3_conn_shutdown_stream_write(http3, stream.streamID)
        quic.abortStream(stream.streamID, applicationError: HTTP3ErrorCode.requestCancelled)
        quic.flush()
        if activeStreams == 0 { onIdle?() }
    }

    private func shutDown(_ error: RelayError) {
        guard !closed else { return }
        closed = true
        isDraining = true
        let open = Array(streams.values) + waitingForStreamID
        streams.removeAll()
        waitingForStreamID.removeAll()
        for stream in open { stream.connectionFailed(error) }
        deliverEvents()
        onClose?()
    }

    private func deliverEvents() {
        guard !delivering else { return }
        delivering = true
        defer { delivering = false }
        // In turns rather than one removeFirst each: a wake-up that drained many datagrams queues many events.
        while !events.isEmpty {
            let turn = events
            events.removeAll(keepingCapacity: true)
            for event in turn { event() }
        }
    }

    private func check(_ rc: Int32) throws(RelayError) {
        guard rc == 0 else { throw RelayError(hop: hop, cause: .protocolError("HTTP/3: \(String(cString: nghttp3_strerror(rc)))")) }
    }

    // MARK: nghttp3 events (dispatched from HTTP3Callbacks)

    func stream(_ id: Int64) -> (any HTTP3StreamHandler)? { streams[id] }

    func streamClosed(_ id: Int64, code: UInt64) {
        guard let stream = streams.removeValue(forKey: id) else { return }
        stream.streamClosed(code: code)
        post { [self] in if activeStreams == 0 { onIdle?() } }
    }

    /// The relay sent GOAWAY: streams from `id` on were not processed and fail; no new ones.
    func goAway(from id: Int64) {
        isDraining = true
        let sender = hop.index == 0 ? "the origin" : "relay"
        for (streamID, stream) in streams where streamID >= id && !stream.ended {
            (stream as? HTTP3ConnectStream)?.markRefusedUnprocessed()
            stream.connectionFailed(RelayError(hop: hop, cause: .protocolError("\(sender) sent GOAWAY before the stream started")))
        }
        let waiting = waitingForStreamID
        waitingForStreamID.removeAll()
        for stream in waiting {
            (stream as? HTTP3ConnectStream)?.markRefusedUnprocessed()
            stream.connectionFailed(RelayError(hop: hop, cause: .protocolError("\(sender) sent GOAWAY")))
        }
        post { [self] in
            if activeStreams == 0 { onIdle?() }
            onStreamAvailable?()  // the pool drops it: waiting tunnels may open another
        }
    }

    // MARK: QUICApplication

    func quicReceived(_ bytes: UnsafeBufferPointer<UInt8>, fin: Bool, onStream id: Int64) throws(RelayError) {
        guard let http3 else { throw RelayError(hop: hop, cause: .protocolError("QUIC stream data before HTTP/3 started")) }
        let consumed = nghttp3_conn_read_stream(http3, id, bytes.baseAddress, bytes.count, fin ? 1 : 0)
        guard consumed >= 0 else { return try check(Int32(consumed)) }
        quic.extendCredit(stream: id, by: consumed)
    }

    func quicAcknowledged(_ count: UInt64, onStream id: Int64) throws(RelayError) {
        guard let http3 else { return }
        try check(nghttp3_conn_add_ack_offset(http3, id, count))
    }

    func quicStreamClosed(_ id: Int64, applicationError code: UInt64?) throws(RelayError) {
        guard let http3 else { return }
        let rc = nghttp3_conn_close_stream(http3, id, code ?? HTTP3ErrorCode.noError)
        if rc == NGHTTP3_ERR_STREAM_NOT_FOUND {
            streamClosed(id, code: code ?? HTTP3ErrorCode.noError)  // nghttp3 never knew it
        } else {
            try check(rc)
        }
    }

    func quicStreamAborted(_ id: Int64, applicationError code: UInt64) throws(RelayError) {
        guard let http3 else { return }
        _ = nghttp3_conn_shutdown_stream_read(http3, id)
        if let stream = streams[id], !stream.ended { stream.aborted(code: code) }
    }

    func quicStreamUnblocked(_ id: Int64) throws(RelayError) {
        guard let http3 else { return }
        let rc = nghttp3_conn_unblock_stream(http3, id)
        if rc != NGHTTP3_ERR_STREAM_NOT_FOUND { try check(rc) }
    }

    func quicMoreStreamsAllowed() {
        post { [self] in
            while let stream = waitingForStreamID.first, isUsable, let id = quic.openBidirectionalStream() {
                waitingForStreamID.removeFirst()
                if !submitRequest(stream, on: id) {
                    stream.connectionFailed(RelayError(hop: hop, cause: .protocolError("the HTTP/3 request could not be sent")))
                }
            }
            onStreamAvailable?()
        }
    }

    func quicNextStreamData() throws(RelayError) -> QUICStreamChunk? {
        guard let http3 else { return nil }
        var vectors = [nghttp3_vec](repeating: nghttp3_vec(), count: 16)
        var id: Int64 = -1
        var fin: Int32 = 0
        let count = nghttp3_conn_writev_stream(http3, &id, &fin, &vectors, vectors.count)
        guard count >= 0 else { try check(Int32(count)); return nil }
        guard id >= 0 else { return nil }
        return QUICStreamChunk(streamID: id, fin: fin != 0,
                               buffers: vectors[0..<count].map { UnsafeRawBufferPointer(start: $0.base, count: $0.len) })
    }

    func quicWrote(_ count: Int, onStream id: Int64) throws(RelayError) {
        guard let http3 else { return }
        try check(nghttp3_conn_add_write_offset(http3, id, count))
    }

    func quicStreamBlocked(_ id: Int64) {
        if let http3 { nghttp3_conn_block_stream(http3, id) }
    }

    func quicStreamWriteClosed(_ id: Int64) {
        if let http3 { nghttp3_conn_shutdown_stream_write(http3, id) }
    }

    func quicDidProcess() { deliverEvents() }

    func quicConnectionFailed(_ error: RelayError) { shutDown(error) }
}

/// Calls `body` with a C array of nghttp3_nv pointing into one packed copy of `fields` (the C library
/// copies them in turn during the call). Internal for the layer tests' nghttp3 server.
func withHTTP3NameValues<R>(_ fields: [(String, String)], _ body: (UnsafePointer<nghttp3_nv>, Int) -> R) -> R {
    withPackedHeaderFields(fields.map { (Array($0.0.utf8), Array($0.1.utf8)) }) { base, spans in
        let values = spans.map {
            nghttp3_nv(name: base + $0.name.lowerBound, value: base + $0.value.lowerBound, namelen: $0.name.count,
                       valuelen: $0.value.count, flags: UInt8(NGHTTP3_NV_FLAG_NONE))
        }
        return values.withUnsafeBufferPointer { body($0.baseAddress!, $0.count) }
    }
}
