/// The control state of one CONNECT stream on a multiplexed relay connection (HTTP/2 or
/// HTTP/3), as a value: events in, actions out. `HTTP2ConnectStream` and `HTTP3ConnectStream`
/// feed it what nghttp2 or nghttp3 report and perform what it answers (complete the connect,
/// tell the layer above, reset the stream); it knows nothing of either library.
struct ConnectStreamMachine: Equatable {
    enum State: Equatable {
        /// Not sent yet.
        case idle
        /// The CONNECT request is out; no final status yet.
        case awaitingAnswer
        /// A 2xx answer: bytes flow both ways.
        case open
        /// The relay ended its side (FIN); we may still send.
        case peerFinished
        /// Finished for the layer above: closed by us, refused, reset or failed.
        case ended
    }

    enum Event: Equatable {
        /// The request was handed to the connection.
        case submitted
        /// The connection cannot take new streams (closed or draining).
        case notAccepted
        /// A `:status` field arrived.
        case status(Int)
        /// A header block ended.
        case headersComplete
        /// The relay ended its side of the stream.
        case peerFinished
        /// The stream is gone: cleanly (nil) or reset with the named error code.
        case closed(resetCode: String?)
        /// The relay reset the stream or asked us to stop sending; we reset it too.
        case aborted(code: String)
        /// The whole connection failed.
        case connectionFailed
        /// The layer above closed the tunnel.
        case closedByUs
    }

    enum Action: Equatable {
        /// Complete the connect: the tunnel is open.
        case opened
        /// Complete the connect with the relay's refusal (`ConnectRefusal`).
        case refused(status: Int)
        /// Complete the connect with a protocol error.
        case setupFailed(String)
        /// Complete the connect with the connection's error.
        case setupFailedWithConnectionError
        /// Tell the layer above: end of stream.
        case endOfStream
        /// Tell the layer above: the tunnel failed with a protocol error.
        case failed(String)
        /// Tell the layer above: the tunnel failed with the connection's error.
        case failedWithConnectionError
        /// Reset the stream (RST_STREAM, or STOP_SENDING and RESET_STREAM).
        case reset
    }

    /// "HTTP/2" or "HTTP/3", for error text.
    let protocolName: String
    private(set) var state: State = .idle
    /// True once a 2xx answer opened the tunnel, whatever happened after.
    private(set) var wasOpened = false
    private var status = 0

    init(protocolName: String) { self.protocolName = protocolName }

    /// Bytes may be sent, and received bytes go up.
    var carriesBytes: Bool { state == .open || state == .peerFinished }
    var isEnded: Bool { state == .ended }

    mutating func handle(_ event: Event) -> [Action] {
        switch (event, state) {
        case (.submitted, .idle):
            state = .awaitingAnswer
            return []
        case (.notAccepted, .idle), (.notAccepted, .awaitingAnswer):
            state = .ended
            return [.setupFailed("the \(protocolName) connection cannot take new streams")]
        case (.status(let value), .awaitingAnswer):
            status = value
            return []
        case (.headersComplete, .awaitingAnswer):
            guard status >= 200 else { return [] }  // 1xx: wait for the final status
            guard (200..<300).contains(status) else {
                state = .ended
                return [.refused(status: status), .reset]
            }
            state = .open
            wasOpened = true
            return [.opened]
        case (.peerFinished, .awaitingAnswer), (.closed(resetCode: nil), .awaitingAnswer):
            state = .ended
            return [.setupFailed("relay ended the stream before answering")]
        case (.peerFinished, .open):
            state = .peerFinished
            return [.endOfStream]
        case (.closed(resetCode: nil), .open):
            state = .ended
            return [.endOfStream]
        case (.closed(let code?), .awaitingAnswer):
            state = .ended
            return [.setupFailed("relay reset the stream: \(code)")]
        case (.closed(let code?), .open), (.closed(let code?), .peerFinished):
            state = .ended
            return [.failed("relay reset the tunnel: \(code)")]
        case (.aborted(let code), .awaitingAnswer):
            state = .ended
            return [.setupFailed("relay reset the stream: \(code)"), .reset]
        case (.aborted(let code), .open), (.aborted(let code), .peerFinished):
            state = .ended
            return [.failed("relay reset the tunnel: \(code)"), .reset]
        case (.aborted, _):
            state = .ended
            return [.reset]
        case (.connectionFailed, .awaitingAnswer):
            state = .ended
            return [.setupFailedWithConnectionError]
        case (.connectionFailed, .open), (.connectionFailed, .peerFinished):
            state = .ended
            return [.failedWithConnectionError]
        case (.closedByUs, .ended):
            return []
        case (.closedByUs, _):
            state = .ended
            return [.reset]
        case (.closed, _), (.connectionFailed, _):
            state = .ended
            return []
        case (.submitted, _), (.notAccepted, _), (.status, _), (.headersComplete, _), (.peerFinished, _):
            return []
        }
    }
}

/// A CONNECT stream that performs its `ConnectStreamMachine`'s actions: what HTTP/2 and HTTP/3
/// streams share (connect, close, the answer's status); each says how its connection takes the
/// request and resets the stream.
protocol ConnectStreamActor: TransportLayer {
    var nextHop: HopDescription? { get }
    /// The stream's control state.
    var machine: ConnectStreamMachine { get set }
    /// The pending connect's completion, until the relay answers.
    var completion: ((Result<Void, RelayError>) -> Void)? { get set }
    /// Hands the CONNECT request to the connection; false when it takes no new streams.
    func submit() -> Bool
    /// Resets the stream on its connection.
    func resetStream()
}

extension ConnectStreamActor {
    func connect(_ completion: @escaping (Result<Void, RelayError>) -> Void) {
        self.completion = completion
        perform(machine.handle(.submitted))
        if !submit() { perform(machine.handle(.notAccepted)) }
    }

    func close() { perform(machine.handle(.closedByUs)) }

    /// A `:status` field arrived.
    func receivedStatus(_ status: Int) { perform(machine.handle(.status(status))) }

    /// Completes the pending connect, once.
    func finish(_ result: Result<Void, RelayError>) {
        guard let completion else { return }
        self.completion = nil
        completion(result)
    }

    /// Performs `actions` in order; `connectionError` is the error of a failed connection.
    func perform(_ actions: [ConnectStreamMachine.Action], connectionError: RelayError? = nil) {
        for action in actions {
            switch action {
            case .opened:
                finish(.success(()))
            case .refused(let status):
                finish(.failure(ConnectRefusal.error(status: status, reason: ConnectRefusal.reasonPhrase(status), hop: hop, nextHop: nextHop)))
            case .setupFailed(let why):
                finish(.failure(RelayError(hop: hop, cause: .protocolError(why))))
            case .setupFailedWithConnectionError:
                if let connectionError { finish(.failure(connectionError)) }
            case .endOfStream:
                delegate?.layerDidReceiveEOF()
            case .failed(let why):
                delegate?.layerDidFail(RelayError(hop: hop, cause: .protocolError(why)))
            case .failedWithConnectionError:
                if let connectionError { delegate?.layerDidFail(connectionError) }
            case .reset:
                resetStream()
            }
        }
    }
}
