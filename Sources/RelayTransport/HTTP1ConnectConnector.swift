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
        openTunnel(through: count, to: target, attempt: attempt, credential: nil, completion: completion)
    }

    /// With `credential`, the retry after a 407: a new connection whose CONNECT carries it as
    /// `Proxy-Authorization` in place of the hop's own.
    private func openTunnel(through count: Int, to target: TunnelTarget, attempt: ChainAttempt, credential: String?,
                            completion: @escaping (Result<TransportLayer, RelayError>) -> Void) {
        let alpn = attempt.hops[count - 1].usesTLS ? ["http/1.1"] : nil
        context.transport(toHop: count, attempt: attempt, alpn: alpn) { result in
            switch result {
            case .failure(let error): completion(.failure(error))
            case .success(let (layer, _)):
                tunnel(over: layer, through: count, to: target, attempt: attempt, credential: credential, completion: completion)
            }
        }
    }

    /// Sends the CONNECT request over `layer`, the connected (TLS) layer to hop `count`.
    func tunnel(over layer: TransportLayer, through count: Int, to target: TunnelTarget, attempt: ChainAttempt, credential: String? = nil,
                completion: @escaping (Result<TransportLayer, RelayError>) -> Void) {
        let relay = attempt.hops[count - 1]
        var headers = relay.fieldPairs
        if let credential { headers = headers.filter { $0.0.lowercased() != "proxy-authorization" } + [("Proxy-Authorization", credential)] }
        let tunnel = HTTP1ConnectLayer(over: layer, targetHost: target.host, targetPort: target.port, headers: headers,
                                       hop: Self.describe(relay, index: count, negotiated: "http/1.1"),
                                       nextHop: context.nextHop(after: count, attempt: attempt))
        context.connect(tunnel, hop: count, attempt: attempt) { [context] result in
            // One answer per tunnel: a refused retry fails as it is, so a relay cannot loop us.
            guard credential == nil, case .failure(let error) = result, case .tunnelRefused(status: 407, _) = error.cause,
                  let responder = context.proxyChallengeResponder, !tunnel.handshake.proxyAuthenticate.isEmpty else { return completion(result) }
            let retry: (String?) -> Void = { answer in
                guard let answer else { return completion(result) }
                openTunnel(through: count, to: target, attempt: attempt, credential: answer, completion: completion)
            }
            responder(ProxyChallenge(hop: count, relay: relay.authority, proxyAuthenticate: tunnel.handshake.proxyAuthenticate),
                      context.loop.hopping(retry))
        }
    }
}
