/// One CONNECT tunnel on an HTTP/3 relay connection (RFC 9114 §4.4): a byte stream for the
/// layer above. A 2xx response opens it; other statuses become `ConnectRefusal` errors, and
/// stream resets and connection failures typed errors naming the hop. Events from nghttp3
/// change state at once and reach the layer above through `HTTP3RelayConnection.post`, after
/// the QUIC stack has returned; its control state is a `ConnectStreamMachine`. Owns the bytes
/// it sends until the relay acknowledges them.
final class HTTP3ConnectStream: ConnectStreamActor, ConnectAnswer {
    let authority: String
    let headers: [(String, String)]
    /// The request's pseudo-header fields: CONNECT to `authority`, or an extended CONNECT.
    let pseudoHeaders: [(String, String)]
    var hop: HopDescription { connection.hop }
    weak var delegate: TransportLayerDelegate?
    var streamID: Int64 = -1
    /// Set by the connection once it reset the stream, so it does so once.
    var resetSent = false
    let outgoing = HTTP3SendBuffer()
    /// True once the stream is finished for the layer above (closed, reset or failed).
    var ended: Bool { machine.isEnded }
    /// The connection the stream is on (held: it outlives its streams).
    let connection: HTTP3RelayConnection
    let nextHop: HopDescription?
    var completion: ((Result<Void, RelayError>) -> Void)?
    var machine = ConnectStreamMachine(protocolName: "HTTP/3")
    /// A 407's challenges, for a responder; HTTP/3 relays' Alt-Svc means nothing here (no TCP side).
    private(set) var proxyAuthenticate: [String] = []
    var altSvc: String? { nil }
    /// True when the relay turned the stream away unprocessed (H3_REQUEST_REJECTED, or GOAWAY
    /// at or below its id) before answering: the CONNECT may go again (RFC 9114 §4.1.1, §5.2).
    private(set) var wasRefusedUnprocessed = false
    private var credit = FlowCredit()
    /// Tunnel bytes received since the last delivery: all the DATA that one read of the QUIC
    /// socket brought goes up as one piece, not one per packet.
    private var arriving: [UInt8] = []

    init(connection: HTTP3RelayConnection, authority: String, headers: [(String, String)], nextHop: HopDescription?,
         pseudoHeaders: [(String, String)]? = nil) {
        self.connection = connection
        self.authority = authority
        self.headers = headers
        self.pseudoHeaders = pseudoHeaders ?? [(":method", "CONNECT"), (":authority", authority)]
        self.nextHop = nextHop
    }

    func submit() -> Bool { connection.submit(self) }

    func send(_ bytes: [UInt8]) {
        guard machine.carriesBytes, !bytes.isEmpty else { return }
        outgoing.append(bytes)
        connection.resume(self)
    }

    func resetStream() { connection.reset(self) }

    /// This stream's bytes nghttp3 has not taken yet (the relay's window for the stream holds
    /// them back while its target is slow), plus what the QUIC connection's path has queued:
    /// nothing for a UDP socket, the outer tunnel's backlog for QUIC inside CONNECT-UDP. Bytes
    /// in flight count as sent, as a TCP socket's do. A slow stream's own backlog counts for
    /// that stream only, so it never holds back another tunnel's reader.
    var queuedBytes: Int { outgoing.unsentBytes + connection.quic.queuedBytes }

    func setReadingPaused(_ paused: Bool) {
        let due = credit.setPaused(paused)
        if due > 0 { connection.credit(self, count: due) }
    }

    // MARK: events from the connection (inside nghttp3's callbacks)

    func noteProxyAuthenticate(_ value: String) { proxyAuthenticate.append(value) }

    func headersComplete() {
        let actions = machine.handle(.headersComplete)
        if !actions.isEmpty { connection.post { [self] in perform(actions) } }
    }

    func receivedData(_ bytes: UnsafeBufferPointer<UInt8>) {
        // Bytes for a tunnel nobody reads any more are given back at once.
        let due = machine.carriesBytes ? credit.received(bytes.count) : bytes.count
        if due > 0 { connection.credit(self, count: due) }
        guard machine.carriesBytes else { return }
        let first = arriving.isEmpty
        arriving.append(contentsOf: bytes)
        guard first else { return }  // the delivery already queued takes these too
        connection.post { [self] in
            let piece = arriving
            arriving = []
            if machine.carriesBytes && !piece.isEmpty { delegate?.layerDidReceive(piece) }
        }
    }

    /// The relay ended its side of the stream (FIN): the tunnel's end of stream.
    func receivedEnd() {
        connection.post { [self] in perform(machine.handle(.peerFinished)) }
    }

    /// The relay reset the stream or asked us to stop sending.
    func aborted(code: UInt64) {
        if code == HTTP3ErrorCode.requestRejected { markRefusedUnprocessed() }
        connection.post { [self] in perform(machine.handle(.aborted(code: HTTP3ErrorCode.name(code)))) }
    }

    /// Both directions are closed and nghttp3 forgot the stream.
    func streamClosed(code: UInt64) {
        if code == HTTP3ErrorCode.requestRejected { markRefusedUnprocessed() }
        let owed = credit.settle()  // the stream is gone, but the connection's window must get these back
        if owed > 0 { connection.credit(self, count: owed) }
        connection.post { [self] in
            perform(machine.handle(.closed(resetCode: code == HTTP3ErrorCode.noError ? nil : HTTP3ErrorCode.name(code))))
        }
    }

    /// The relay left the stream unprocessed, if it had not answered it yet.
    func markRefusedUnprocessed() {
        if !machine.wasOpened { wasRefusedUnprocessed = true }
    }

    func connectionFailed(_ error: RelayError) {
        connection.post { [self] in perform(machine.handle(.connectionFailed), connectionError: error) }
    }
}
