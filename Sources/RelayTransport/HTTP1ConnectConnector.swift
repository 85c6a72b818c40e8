/// HTTP/1.1 CONNECT (RFC 9110) to a relay over TCP, or over TLS (ALPN http/1.1) for an https
/// relay: one connection per tunnel, so nothing to pool and nothing to probe.
struct HTTP1ConnectConnector: HopConnector {
    let context: ChainContext

    init(context: ChainContext, relay: RelayEndpoint, index: Int) { self.context = context }
    init(context: ChainContext) { self.context = context }

    /// It speaks HTTP/1.1 whatever TLS negotiates; libcurl's own proxy route names its hop so too.
    static func describe(_ relay: RelayEndpoint, index: Int, negotiated alpn: String?) -> HopDescription {
        HopDescription(index: index, endpoint: relay.authority, protocolName: (relay.usesTLS ? "HTTPS" : "HTTP") + ", HTTP/1.1 CONNECT")
    }

    func openTunnel(through count: Int, to target: TunnelTarget, attempt: ChainAttempt,
                    completion: @escaping (Result<TransportLayer, RelayError>) -> Void) {
        let alpn = attempt.hops[count - 1].usesTLS ? ["http/1.1"] : nil
        context.transport(toHop: count, attempt: attempt, alpn: alpn) { result in
            switch result {
            case .failure(let error): completion(.failure(error))
            case .success(let (layer, _)): tunnel(over: layer, through: count, to: target, attempt: attempt, completion: completion)
            }
        }
    }

    /// Sends the CONNECT request over `layer`, the connected (TLS) layer to hop `count`, with the
    /// hop's fields (and the attempt's answer to its challenge, on a retry after a 407).
    func tunnel(over layer: TransportLayer, through count: Int, to target: TunnelTarget, attempt: ChainAttempt,
                completion: @escaping (Result<TransportLayer, RelayError>) -> Void) {
        let relay = attempt.hops[count - 1]
        let tunnel = HTTP1ConnectLayer(over: layer, targetHost: target.host, targetPort: target.port, headers: attempt.fields(ofHop: count),
                                       hop: Self.describe(relay, index: count, negotiated: "http/1.1"),
                                       nextHop: context.nextHop(after: count, attempt: attempt))
        context.connect(tunnel, hop: count, attempt: attempt, completion: completion)
    }
}
