/// One CONNECT tunnel on an HTTP/2 relay connection (RFC 9113 §8.5): a byte stream for the
/// layer above. A 2xx response opens it; other statuses, RST_STREAM and GOAWAY become typed
/// errors naming the hop.
final class HTTP2ConnectStream: TransportLayer, ConnectAnswer {
    let authority: String
    let headers: [(String, String)]
    var hop: HopDescription { connection.hop }
    weak var delegate: TransportLayerDelegate?
    var streamID: Int32 = -1
    private let connection: HTTP2RelayConnection
    private let nextHop: HopDescription?
    private var completion: ((Result<Void, RelayError>) -> Void)?
    private var status = 0
    private(set) var altSvc: String?
    private var open = false
    private var ended = false
    private var outgoing: [UInt8] = []
    private var credit = FlowCredit()

    init(connection: HTTP2RelayConnection, authority: String, headers: [(String, String)], nextHop: HopDescription?) {
        self.connection = connection
        self.authority = authority
        self.headers = headers
        self.nextHop = nextHop
    }

    func connect(_ completion: @escaping (Result<Void, RelayError>) -> Void) {
        self.completion = completion
        if !connection.submit(self) {
            finish(.failure(RelayError(hop: hop, cause: .protocolError("the HTTP/2 connection cannot take new streams"))))
        }
    }

    func send(_ bytes: [UInt8]) {
        guard open, !ended else { return }
        outgoing += bytes
        connection.resume(self)
    }

    func close() {
        guard !ended else { return }
        ended = true
        connection.reset(self)
    }

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

    func receivedStatus(_ status: Int) { self.status = status }
    func receivedAltSvc(_ value: String) { altSvc = value }

    func headersComplete() {
        guard !open, completion != nil, status >= 200 else { return }  // 1xx: wait for the final status
        if (200..<300).contains(status) {
            open = true
            finish(.success(()))
        } else {
            finish(.failure(ConnectRefusal.error(status: status, reason: ConnectRefusal.reasonPhrase(status), hop: hop, nextHop: nextHop)))
            close()
        }
    }

    func receivedData(_ bytes: [UInt8]) {
        guard open else { return }
        connection.consume(self, count: credit.received(bytes.count))
        delegate?.layerDidReceive(bytes)
    }

    func streamClosed(code: UInt32) {
        let wasEnded = ended
        ended = true
        if completion != nil {
            let why = code == 0 ? "relay ended the stream before answering" : "relay reset the stream: \(HTTP2RelayConnection.codeName(code))"
            finish(.failure(RelayError(hop: hop, cause: .protocolError(why))))
        } else if wasEnded {
            return
        } else if code == 0 {
            delegate?.layerDidReceiveEOF()
        } else {
            delegate?.layerDidFail(RelayError(hop: hop, cause: .protocolError("relay reset the tunnel: \(HTTP2RelayConnection.codeName(code))")))
        }
    }

    func connectionFailed(_ error: RelayError) {
        ended = true
        if completion != nil { finish(.failure(error)) } else { delegate?.layerDidFail(error) }
    }

    private func finish(_ result: Result<Void, RelayError>) {
        guard let completion else { return }
        self.completion = nil
        completion(result)
    }
}
