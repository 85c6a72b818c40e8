/// A handshake that opens a tunnel over a byte stream, without I/O: the bytes to send first,
/// then, for each piece of the relay's answer, the next step. HTTP/1.1 CONNECT
/// (`HTTP1ConnectHandshake`) and SOCKS5 (`SOCKS5Handshake`) are such handshakes.
protocol TunnelHandshake {
    /// What to send once the layer below is connected.
    mutating func start() -> [UInt8]
    /// Takes bytes from the relay; after `.established` or `.failed` it is not asked again.
    mutating func receive(_ bytes: [UInt8]) -> TunnelHandshakeStep
}

enum TunnelHandshakeStep {
    case needMore
    case send([UInt8])
    /// The tunnel is open; `leftover` arrived after the handshake and belongs to the tunnel.
    case established(leftover: [UInt8])
    /// The error names the hop that failed (the next one, when the relay could not reach it).
    case failed(RelayError)
}

/// A tunnel layer that runs a `TunnelHandshake` over the layer below (TCP or TLS to the relay,
/// or a tunnel through the hops before), then only passes bytes on.
final class HandshakeLayer<Handshake: TunnelHandshake>: TransportLayer, TransportLayerDelegate {
    let hop: HopDescription
    weak var delegate: TransportLayerDelegate?
    private let lower: TransportLayer
    var queuedBytes: Int { lower.queuedBytes }
    private(set) var handshake: Handshake
    private var completion: ((Result<Void, RelayError>) -> Void)?
    private var open = false

    init(over lower: TransportLayer, handshake: Handshake, hop: HopDescription) {
        self.lower = lower
        self.handshake = handshake
        self.hop = hop
        lower.delegate = self
    }

    func connect(_ completion: @escaping (Result<Void, RelayError>) -> Void) {
        self.completion = completion
        lower.send(handshake.start())
    }

    func send(_ bytes: [UInt8]) { lower.send(bytes) }
    func close() { lower.close() }
    func setReadingPaused(_ paused: Bool) { lower.setReadingPaused(paused) }

    func layerDidReceive(_ bytes: [UInt8]) {
        if open {
            delegate?.layerDidReceive(bytes)
            return
        }
        switch handshake.receive(bytes) {
        case .needMore:
            return
        case .send(let message):
            lower.send(message)
        case .established(let leftover):
            open = true
            finish(.success(()))
            if !leftover.isEmpty { delegate?.layerDidReceive(leftover) }
        case .failed(let error):
            finish(.failure(error))
        }
    }

    func layerDidReceiveEOF() {
        if open { delegate?.layerDidReceiveEOF() } else { finish(.failure(RelayError(hop: hop, cause: .closedDuringSetup))) }
    }

    func layerDidFail(_ error: RelayError) {
        if open { delegate?.layerDidFail(error) } else { finish(.failure(error)) }
    }

    private func finish(_ result: Result<Void, RelayError>) {
        guard let completion else { return }
        self.completion = nil
        if case .failure = result { lower.close() }
        completion(result)
    }
}
