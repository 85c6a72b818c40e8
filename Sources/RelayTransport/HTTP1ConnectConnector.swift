/// HTTP/1.1 CONNECT (RFC 9110) to a relay over TCP, or over TLS for an https relay: one
/// connection per tunnel.
struct HTTP1ConnectConnector: HopConnector {
    let context: ChainContext
    let usesTLS: Bool

    var name: String { usesTLS ? "HTTPS, HTTP/1.1 CONNECT" : "HTTP, HTTP/1.1 CONNECT" }

    func poolKey(hop index: Int, of hops: [RelayEndpoint]) -> RelayEndpoint? { nil }

    func openTunnel(through count: Int, to target: TunnelTarget, attempt: ChainAttempt,
                    completion: @escaping (Result<TransportLayer, RelayError>) -> Void) {
        context.transport(toHop: count, attempt: attempt) { result in
            switch result {
            case .failure(let error): completion(.failure(error))
            case .success(let (layer, _)): tunnel(over: layer, through: count, to: target, attempt: attempt, completion: completion)
            }
        }
    }

    /// Sends the CONNECT request over `layer`, the connected (TLS) layer to hop `count`.
    func tunnel(over layer: TransportLayer, through count: Int, to target: TunnelTarget, attempt: ChainAttempt,
                completion: @escaping (Result<TransportLayer, RelayError>) -> Void) {
        let relay = attempt.hops[count - 1]
        let tunnel = HTTP1ConnectLayer(over: layer, targetHost: target.host, targetPort: target.port, headers: relay.fieldPairs,
                                       hop: attempt.description(ofHop: count, negotiated: "http/1.1"),
                                       nextHop: context.nextHop(after: count, attempt: attempt))
        context.connect(tunnel, hop: count, attempt: attempt, completion: completion)
    }
}
