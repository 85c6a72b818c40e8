internal import CNghttp2

/// One CONNECT tunnel on an HTTP/2 relay connection (RFC 9113 §8.5): a byte stream for the
/// layer above. A 2xx response opens it; other statuses, RST_STREAM and GOAWAY become typed
/// errors naming the hop. Its control state is a `ConnectStreamMachine`.
final class HTTP2ConnectStream: ConnectStreamActor, ConnectAnswer {
    let authority: String
    let headers: [(String, String)]
    var hop: HopDescription { connection.hop }
    weak var delegate: TransportLayerDelegate?
    var streamID: Int32 = -1
    private let connection: HTTP2RelayConnection
    let nextHop: HopDescription?
    var completion: ((Result<Void, RelayError>) -> Void)?
    private(set) var altSvc: String?
    private(set) var proxyAuthenticate: [String] = []
    /// True when the relay turned the stream away unprocessed (REFUSED_STREAM, or GOAWAY below
    /// its id) before answering: the CONNECT may go again on another connection (RFC 9113 §8.7).
    private(set) var wasRefusedUnprocessed = false
    var machine = ConnectStreamMachine(protocolName: "HTTP/2")
    private var outgoing: [UInt8] = []
    private var credit = FlowCredit()

    init(connection: HTTP2RelayConnection, authority: String, headers: [(String, String)], nextHop: HopDescription?) {
        self.connection = connection
        self.authority = authority
        self.headers = headers
        self.nextHop = nextHop
    }

    func submit() -> Bool { connection.submit(self) }

    func send(_ bytes: [UInt8]) {
        guard machine.carriesBytes else { return }
        outgoing += bytes
        connection.resume(self)
    }

    func resetStream() { connection.reset(self) }

    /// This stream's bytes that nghttp2 has not taken (the relay's window for the stream holds
    /// them back while its target is slow), plus everything the connection has queued below:
    /// that queue is first in, first out, so every stream's next bytes wait behind all of it
    /// anyway. A slow stream's own backlog counts for that stream only, so it never holds back
    /// another tunnel's reader.
    var queuedBytes: Int { outgoing.count + connection.queuedBytes }

    func setReadingPaused(_ paused: Bool) {
        connection.consume(self, count: credit.setPaused(paused))
    }

    // MARK: events from the connection

    func takeOutgoing(into buffer: UnsafeMutablePointer<UInt8>, capacity: Int) -> Int {
        let count = min(capacity, outgoing.count)
        guard count > 0 else { return 0 }
        outgoing.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress!, count: count) }
        outgoing.removeFirst(count)
        return count
    }

    func receivedAltSvc(_ value: String) { altSvc = value }
    func receivedProxyAuthenticate(_ value: String) { proxyAuthenticate.append(value) }
    func headersComplete() { perform(machine.handle(.headersComplete)) }

    func receivedData(_ bytes: [UInt8]) {
        guard machine.wasOpened else { return }
        connection.consume(self, count: credit.received(bytes.count))
        delegate?.layerDidReceive(bytes)
    }

    /// The relay ended its side (END_STREAM): the tunnel's end of stream; we may still send.
    func receivedEnd() { perform(machine.handle(.peerFinished)) }

    func streamClosed(code: UInt32) {
        if code == NGHTTP2_REFUSED_STREAM.rawValue, !machine.wasOpened { wasRefusedUnprocessed = true }
        perform(machine.handle(.closed(resetCode: code == 0 ? nil : HTTP2RelayConnection.codeName(code))))
    }

    func connectionFailed(_ error: RelayError) {
        perform(machine.handle(.connectionFailed), connectionError: error)
    }

    /// The relay's GOAWAY left the stream unprocessed.
    func refusedUnprocessed(_ error: RelayError) {
        if !machine.wasOpened { wasRefusedUnprocessed = true }
        connectionFailed(error)
    }
}
