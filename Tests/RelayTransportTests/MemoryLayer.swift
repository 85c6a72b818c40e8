import XCTest
@testable import RelayTransport

/// The layer under the one being tested, as an in-memory byte stream: it keeps what the layer
/// above sends until the test (or a `MemoryPeer` through `pump`) takes it, and delivers what the
/// test gives it, holding deliveries back while the layer above has paused reading, as a socket
/// that is not read would.
final class MemoryLayer: TransportLayer {
    let hop: HopDescription
    weak var delegate: TransportLayerDelegate?
    /// Bytes sent by the layer above and not taken yet.
    var sent: [UInt8] = []
    /// Each `send` call, in order (to see how output was split).
    private(set) var sendCalls = 0
    private(set) var closed = false
    private(set) var paused = false
    /// Bytes (and the end of the stream) waiting for the layer above to resume reading.
    private var held: [UInt8] = []
    private var heldEOF = false

    init(hop: HopDescription = HopDescription(index: 1, endpoint: "memory:1", protocolName: "memory")) { self.hop = hop }

    func connect(_ completion: @escaping (Result<Void, RelayError>) -> Void) { completion(.success(())) }
    func send(_ bytes: [UInt8]) {
        sendCalls += 1
        sent += bytes
    }
    func close() { closed = true }

    func setReadingPaused(_ paused: Bool) {
        self.paused = paused
        guard !paused else { return }
        let bytes = held, end = heldEOF
        held = []
        heldEOF = false
        if !bytes.isEmpty { delegate?.layerDidReceive(bytes) }
        if end { delegate?.layerDidReceiveEOF() }
    }

    /// Takes (and clears) what the layer above sent.
    func takeSent() -> [UInt8] {
        defer { sent = [] }
        return sent
    }

    /// Delivers `bytes` upward, `chunk` bytes per delivery (all at once when nil).
    func deliver(_ bytes: [UInt8], chunk: Int? = nil) {
        guard !bytes.isEmpty else { return }
        let size = chunk ?? bytes.count
        var start = 0
        while start < bytes.count {
            let piece = Array(bytes[start..<min(bytes.count, start + size)])
            start += piece.count
            if paused || !held.isEmpty { held += piece } else { delegate?.layerDidReceive(piece) }
        }
    }

    func deliver(_ text: String) { deliver(Array(text.utf8)) }

    /// The peer ended the stream cleanly (TCP FIN).
    func deliverEOF() {
        if paused || !held.isEmpty { heldEOF = true } else { delegate?.layerDidReceiveEOF() }
    }

    /// The stream below broke.
    func deliverFailure(_ error: RelayError) { delegate?.layerDidFail(error) }
}

/// The far end of a `MemoryLayer`: a real protocol engine (an OpenSSL or nghttp2 server) run
/// in-process.
protocol MemoryPeer: AnyObject {
    /// Bytes from our side.
    func receive(_ bytes: [UInt8])
    /// What the peer wants to send now (empty when nothing).
    func takeOutput() -> [UInt8]
}

/// Moves bytes both ways between `layer` and `peer` until neither has more to say (what the layer
/// above paused stays held in `layer`). `chunk` splits deliveries to our side, to check a layer
/// that is handed its input a byte at a time.
func pump(_ layer: MemoryLayer, _ peer: MemoryPeer, chunk: Int? = nil, rounds: Int = 1000) {
    for _ in 0..<rounds {
        let toPeer = layer.takeSent()
        if !toPeer.isEmpty { peer.receive(toPeer) }
        let toUs = peer.takeOutput()
        if !toUs.isEmpty { layer.deliver(toUs, chunk: chunk) }
        if toPeer.isEmpty && toUs.isEmpty && layer.sent.isEmpty { return }
    }
    XCTFail("the in-memory exchange did not settle")
}

/// Collects what a layer delivers upward.
final class Collector: TransportLayerDelegate {
    var received: [UInt8] = []
    var deliveries = 0
    var ended = false
    var error: RelayError?
    func layerDidReceive(_ bytes: [UInt8]) {
        deliveries += 1
        received += bytes
    }
    func layerDidReceiveEOF() { ended = true }
    func layerDidFail(_ error: RelayError) { self.error = error }
}

/// A layer under test being connected (a CONNECT stream, say): what it passes up, and how its
/// connect ended (nil while it waits).
final class Connecting<Layer: TransportLayer> {
    let layer: Layer
    let above = Collector()
    private(set) var outcome: Result<Void, RelayError>?

    init(_ layer: Layer) {
        self.layer = layer
        layer.delegate = above
        layer.connect { [unowned self] in outcome = $0 }
    }
}

/// Compares byte arrays by length, then content, without printing megabytes when they differ.
func XCTAssertBytesEqual(_ actual: [UInt8]?, _ expected: [UInt8], _ message: String = "", file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(actual?.count, expected.count, "length: \(message)", file: file, line: line)
    XCTAssertTrue(actual == expected, "content: \(message)", file: file, line: line)
}
