/// Opens a tunnel through an HTTP/1.1 relay with CONNECT (RFC 9110 §9.3.6), then passes bytes on.
/// The target travels unresolved in the request: the relay, never we, resolves its name.
public final class HTTP1ConnectLayer: TransportLayer, TransportLayerDelegate, ConnectAnswer {
    public let hop: HopDescription
    public weak var delegate: TransportLayerDelegate?
    private let lower: TransportLayer
    private let authority: String
    private let headers: [(String, String)]
    private let nextHop: HopDescription?
    private var parser = ConnectResponseParser()
    private var completion: ((Result<Void, RelayError>) -> Void)?
    private var open = false

    /// - Parameters:
    ///   - headers: this hop's own header fields; they are sent on this CONNECT only.
    ///   - nextHop: the relay the tunnel leads to, if any, so that "cannot reach it" names it.
    init(over lower: TransportLayer, targetHost: String, targetPort: UInt16, headers: [(String, String)], hop: HopDescription,
         nextHop: HopDescription? = nil) {
        self.lower = lower
        self.nextHop = nextHop
        self.authority = ConnectRequest.authority(host: targetHost, port: targetPort)
        self.headers = headers
        self.hop = hop
        lower.delegate = self
    }

    public func connect(_ completion: @escaping (Result<Void, RelayError>) -> Void) {
        self.completion = completion
        lower.send(ConnectRequest.head(authority: authority, headers: headers))
    }

    var altSvc: String? { parser.altSvc }

    public func send(_ bytes: [UInt8]) { lower.send(bytes) }
    public func close() { lower.close() }
    public func setReadingPaused(_ paused: Bool) { lower.setReadingPaused(paused) }

    public func layerDidReceive(_ bytes: [UInt8]) {
        if open {
            delegate?.layerDidReceive(bytes)
            return
        }
        switch parser.feed(bytes) {
        case .needMore:
            return
        case .established(_, let leftover):
            open = true
            finish(.success(()))
            if !leftover.isEmpty { delegate?.layerDidReceive(leftover) }
        case .refused(let status, let reason):
            finish(.failure(ConnectRefusal.error(status: status, reason: reason, hop: hop, nextHop: nextHop)))
        case .malformed(let why):
            finish(.failure(RelayError(hop: hop, cause: .protocolError(why))))
        }
    }

    public func layerDidReceiveEOF() {
        if open { delegate?.layerDidReceiveEOF() } else { finish(.failure(RelayError(hop: hop, cause: .closedDuringSetup))) }
    }

    public func layerDidFail(_ error: RelayError) {
        if open { delegate?.layerDidFail(error) } else { finish(.failure(error)) }
    }

    private func finish(_ result: Result<Void, RelayError>) {
        guard let completion else { return }
        self.completion = nil
        if case .failure = result { lower.close() }
        completion(result)
    }
}
