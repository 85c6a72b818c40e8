/// A TLS connection over TCP to a server that is not a relay, such as a DNS-over-TLS resolver:
/// the same TCP and TLS layers the chain builder uses, dialled at an address the caller gives
/// (no name is resolved for it). All methods and callbacks run on the loop.
package final class TLSClientConnection: TransportLayerDelegate {
    /// TCP to the server (any byte stream in the layer tests).
    private let lower: TransportLayer
    private let tls: TLSLayer
    /// Bytes from the server, as they arrive.
    package var onReceive: (([UInt8]) -> Void)?
    /// The server ended the stream (nil) or the connection failed.
    package var onEnd: ((RelayError?) -> Void)?

    /// - Parameters:
    ///   - address: an IP literal to connect to.
    ///   - serverName: the name to verify and send as SNI (or an IP literal to verify).
    package convenience init(loop: EventLoop, address: String, port: UInt16, serverName: String, trust: TLSTrust, alpn: [String],
                            description: HopDescription) throws(TLSSetupError) {
        try self.init(over: TCPLayer(loop: loop, host: address, port: port, hop: description), serverName: serverName,
                      trust: trust, alpn: alpn, description: description)
    }

    /// TLS over `lower`, which `connect` connects first.
    init(over lower: TransportLayer, serverName: String, trust: TLSTrust, alpn: [String], description: HopDescription) throws(TLSSetupError) {
        self.lower = lower
        tls = try TLSLayer(over: lower, context: TLSContext(trust: trust), serverName: serverName, alpn: alpn, hop: description)
        tls.delegate = self
    }

    /// Connects TCP, then runs the TLS handshake; `completion` once, on the loop.
    package func connect(_ completion: @escaping (Result<Void, RelayError>) -> Void) {
        lower.connect { [self] result in
            switch result {
            case .failure(let error): completion(.failure(error))
            case .success:
                tls.connect(completion)
            }
        }
    }

    package var negotiatedALPN: String? { tls.negotiatedALPN }

    package func send(_ bytes: [UInt8]) { tls.send(bytes) }

    package func close() { tls.close() }

    package func layerDidReceive(_ bytes: [UInt8]) { onReceive?(bytes) }
    package func layerDidReceiveEOF() { onEnd?(nil) }
    package func layerDidFail(_ error: RelayError) { onEnd?(error) }
}
