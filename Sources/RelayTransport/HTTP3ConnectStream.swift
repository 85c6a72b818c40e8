/// One CONNECT tunnel on an HTTP/3 relay connection (RFC 9114 §4.4): a byte stream for the
/// layer above. A 2xx response opens it; other statuses become `ConnectRefusal` errors, and
/// stream resets and connection failures typed errors naming the hop. Events from nghttp3
/// change state at once and reach the layer above through `HTTP3RelayConnection.post`, after
/// the QUIC stack has returned. Owns the bytes it sends until the relay acknowledges them.
final class HTTP3ConnectStream: TransportLayer {
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
    private(set) var ended = false
    private let connection: HTTP3RelayConnection
    private let nextHop: HopDescription?
    private var completion: ((Result<Void, RelayError>) -> Void)?
    private var status = 0
    private var open = false
    private var credit = FlowCredit()

    init(connection: HTTP3RelayConnection, authority: String, headers: [(String, String)], nextHop: HopDescription?,
         pseudoHeaders: [(String, String)]? = nil) {
        self.connection = connection
        self.authority = authority
        self.headers = headers
        self.pseudoHeaders = pseudoHeaders ?? [(":method", "CONNECT"), (":authority", authority)]
        self.nextHop = nextHop
    }

    func connect(_ completion: @escaping (Result<Void, RelayError>) -> Void) {
        self.completion = completion
        if !connection.submit(self) {
            finish(.failure(RelayError(hop: hop, cause: .protocolError("the HTTP/3 connection cannot take new streams"))))
        }
    }

    func send(_ bytes: [UInt8]) {
        guard open, !ended, !bytes.isEmpty else { return }
        outgoing.append(bytes)
        connection.resume(self)
    }

    func close() {
        guard !ended else { return }
        ended = true
        connection.reset(self)
    }

    func setReadingPaused(_ paused: Bool) {
        let due = credit.setPaused(paused)
        if due > 0 { connection.credit(self, count: due) }
    }

    // MARK: events from the connection (inside nghttp3's callbacks)

    func receivedStatus(_ status: Int) { self.status = status }

    func headersComplete() {
        guard !open, completion != nil, status >= 200 else { return }  // 1xx: wait for the final status
        if (200..<300).contains(status) {
            open = true
            connection.post { [self] in finish(.success(())) }
        } else {
            let error = ConnectRefusal.error(status: status, reason: ConnectRefusal.reasonPhrase(status), hop: hop, nextHop: nextHop)
            connection.post { [self] in
                finish(.failure(error))
                close()
            }
        }
    }

    func receivedData(_ bytes: [UInt8]) {
        // Bytes for a tunnel nobody reads any more are given back at once.
        let due = open && !ended ? credit.received(bytes.count) : bytes.count
        if due > 0 { connection.credit(self, count: due) }
        guard open, !ended else { return }
        connection.post { [self] in if !ended { delegate?.layerDidReceive(bytes) } }
    }

    /// The relay ended its side of the stream (FIN): the tunnel's end of stream.
    func receivedEnd() {
        connection.post { [self] in
            if completion != nil {
                finish(.failure(RelayError(hop: hop, cause: .protocolError("relay ended the stream before answering"))))
            } else if open && !ended {
                delegate?.layerDidReceiveEOF()
            }
        }
    }

    /// The relay reset the stream or asked us to stop sending.
    func aborted(code: UInt64) {
        connection.post { [self] in
            let why = "relay reset the \(completion != nil ? "stream" : "tunnel"): \(HTTP3ErrorCode.name(code))"
            failUpward(RelayError(hop: hop, cause: .protocolError(why)))
            ended = true
            connection.reset(self)
        }
    }

    /// Both directions are closed and nghttp3 forgot the stream.
    func streamClosed(code: UInt64) {
        let owed = credit.settle()  // the stream is gone, but the connection's window must get these back
        if owed > 0 { connection.credit(self, count: owed) }
        connection.post { [self] in
            if code == HTTP3ErrorCode.noError {
                if completion != nil {
                    finish(.failure(RelayError(hop: hop, cause: .protocolError("relay ended the stream before answering"))))
                }
            } else {
                failUpward(RelayError(hop: hop, cause: .protocolError("relay reset the tunnel: \(HTTP3ErrorCode.name(code))")))
            }
            ended = true
        }
    }

    func connectionFailed(_ error: RelayError) {
        connection.post { [self] in
            failUpward(error)
            ended = true
        }
    }

    /// Reports `error` to whoever waits: the connect completion, or else the layer above (once).
    private func failUpward(_ error: RelayError) {
        if completion != nil {
            finish(.failure(error))
        } else if open && !ended {
            ended = true
            delegate?.layerDidFail(error)
        }
    }

    private func finish(_ result: Result<Void, RelayError>) {
        guard let completion else { return }
        self.completion = nil
        completion(result)
    }
}
