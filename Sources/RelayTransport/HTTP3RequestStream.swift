/// One HTTP request to an origin on an HTTP/3 connection (RFC 9114 §4.1): the request's header
/// block and content go out, the response's head, content and end come back to `sink`. Any
/// status is an answer (redirects and errors are the session's business); a reset stream, a
/// GOAWAY that left it unprocessed or a failed connection ends it with an error naming the
/// origin. Events from nghttp3 change state at once and reach the sink through
/// `HTTP3RelayConnection.post`, after the QUIC stack returned. Received bytes are credited back
/// only while the sink is not paused, so a slow reader holds the origin back. Loop thread only.
final class HTTP3RequestStream: HTTP3StreamHandler {
    let pseudoHeaders: [(String, String)]
    let headers: [(String, String)]
    var streamID: Int64 = -1
    var resetSent = false
    let outgoing = HTTP3SendBuffer()
    let sendsContent: Bool
    var contentComplete: Bool { pump?.complete ?? sendsContent }
    /// Reads streamed content as the origin takes it; nil when the content was given whole.
    private var pump: HTTP3ContentPump?
    private(set) var ended = false
    let connection: HTTP3RelayConnection
    private let sink: HTTP3ResponseSink
    private var status = 0
    private var fields: [(name: String, value: String)] = []
    private var headDelivered = false
    private var credit = FlowCredit()
    /// Content received since the last delivery: one read of the QUIC socket goes up as one piece.
    private var arriving: [UInt8] = []

    init(connection: HTTP3RelayConnection, request: HTTP3OriginRequest, loop: EventLoop, sink: HTTP3ResponseSink) {
        self.connection = connection
        self.sink = sink
        pseudoHeaders = [(":method", request.method), (":scheme", "https"), (":authority", request.authority), (":path", request.path)]
        headers = request.headerFields.map { ($0.name, $0.value) }
        sendsContent = request.content != nil || request.streamedContent != nil
        if let content = request.content { outgoing.append(content) }
        if let source = request.streamedContent { pump = HTTP3ContentPump(source: source, loop: loop, stream: self) }
    }

    /// Hands the request to the connection; fails the stream when it takes no new streams.
    func start() {
        if !connection.submit(self) {
            return finish(.failure(RelayError(hop: connection.hop, cause: .protocolError("the HTTP/3 connection cannot take new streams"))))
        }
        pump?.pull()
    }

    // MARK: streamed content

    /// More content is buffered, or its end is known: nghttp3 may send again.
    func contentAdvanced() { connection.resume(self) }

    /// The origin acknowledged content: its memory is free, so the next piece may be read.
    func contentAcknowledged() { pump?.pull() }

    /// The content could not be read: the stream is reset (the origin must not take a cut-off
    /// body for a whole one) and the exchange fails saying why.
    func contentFailed(_ error: any Error) {
        finish(.failure(failure("the request body could not be read: \(error)")))
        connection.reset(self)
    }

    /// Stops or resumes crediting received bytes back (the reader is behind, or caught up).
    func setReadingPaused(_ paused: Bool) {
        let due = credit.setPaused(paused)
        if due > 0 { connection.credit(self, count: due) }
    }

    /// The reader went away: the stream is cancelled (H3_REQUEST_CANCELLED) and the sink hears nothing more.
    func cancel() {
        guard !ended else { return }
        ended = true
        connection.reset(self)
    }

    // MARK: events from the connection (inside nghttp3's callbacks)

    func receivedField(name: String, value: String) {
        if !name.hasPrefix(":") { fields.append((name, value)) }
    }

    func receivedStatus(_ status: Int) { self.status = status }

    func headersComplete() {
        guard !headDelivered else { return }
        guard status >= 200 else {  // an interim response: the final one follows
            fields.removeAll()
            return
        }
        headDelivered = true
        let (status, fields) = (status, fields)
        connection.post { [self] in if !ended { sink.http3ReceivedHead(status: status, fields: fields) } }
    }

    func receivedData(_ bytes: UnsafeBufferPointer<UInt8>) {
        let due = ended ? bytes.count : credit.received(bytes.count)
        if due > 0 { connection.credit(self, count: due) }
        guard !ended, !bytes.isEmpty else { return }
        let first = arriving.isEmpty
        arriving.append(contentsOf: bytes)
        guard first else { return }
        connection.post { [self] in
            let piece = arriving
            arriving = []
            if !ended && !piece.isEmpty { sink.http3Received(piece) }
        }
    }

    func receivedEnd() {
        connection.post { [self] in
            if !headDelivered { return finish(.failure(failure("the origin ended the stream before its response header"))) }
            finish(.success(()))
        }
    }

    func aborted(code: UInt64) {
        connection.post { [self] in finish(.failure(failure("the origin reset the stream: \(HTTP3ErrorCode.name(code))"))) }
        connection.reset(self)
    }

    func streamClosed(code: UInt64) {
        let owed = credit.settle()
        if owed > 0 { connection.credit(self, count: owed) }
        connection.post { [self] in
            if code == HTTP3ErrorCode.noError, headDelivered { return finish(.success(())) }
            finish(.failure(failure(code == HTTP3ErrorCode.noError ? "the origin closed the stream before answering"
                                                                   : "the origin reset the stream: \(HTTP3ErrorCode.name(code))")))
        }
    }

    func connectionFailed(_ error: RelayError) {
        connection.post { [self] in finish(.failure(error)) }
    }

    private func failure(_ why: String) -> RelayError { RelayError(hop: connection.hop, cause: .protocolError(why)) }

    /// Tells the sink how the exchange ended, once; the stream is done for the layers above.
    private func finish(_ result: Result<Void, RelayError>) {
        guard !ended else { return }
        ended = true
        if !arriving.isEmpty, case .success = result {
            sink.http3Received(arriving)
            arriving = []
        }
        sink.http3Finished(result)
    }
}
