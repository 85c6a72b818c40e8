/// HTTP/2 CONNECT (RFC 9113) to an https relay, offered by ALPN: tunnels through the same chain
/// prefix share one connection, and ones that arrive while it is set up wait for it. A relay
/// that picks http/1.1 is spoken to with `HTTP1ConnectConnector` and remembered, unless h2 was
/// insisted on.
struct HTTP2ConnectConnector: HopConnector {
    let context: ChainContext

    var name: String { "HTTPS, HTTP/2 CONNECT" }

    func poolKey(hop index: Int, of hops: [RelayEndpoint]) -> RelayConnectionPool.Key? { Self.key(hop: index, of: hops) }

    /// The hops (endpoint, trust, protocol and headers) up to and including hop `index`.
    static func key(hop index: Int, of hops: [RelayEndpoint]) -> RelayConnectionPool.Key { RelayConnectionPool.Key(hops[0..<index]) }

    func openTunnel(through count: Int, to target: TunnelTarget, attempt: ChainAttempt,
                    completion: @escaping (Result<TransportLayer, RelayError>) -> Void) {
        let relay = attempt.hops[count - 1]
        let pool = context.pool
        let key = Self.key(hop: count, of: attempt.hops)
        let nextHop = context.nextHop(after: count, attempt: attempt)
        if let connection = pool.usableConnection(for: key) {
            attempt.note(hop: count, protocolName: name, reused: true)
            let stream = connection.makeStream(authority: target.description, headers: relay.fieldPairs, nextHop: nextHop)
            return context.connect(stream, hop: count, attempt: attempt, completion: completion)
        }
        if pool.isEstablishing(key) {
            // Another tunnel is already connecting to this hop: wait and share its connection.
            pool.wait(for: key) { [context] in context.tunnel(through: count, to: target, attempt: attempt, completion: completion) }
            return
        }
        let mayMultiplex = relay.usesTLS && !pool.speaksHTTP1(key)
        if mayMultiplex { pool.beginEstablishing(key) }
        context.transport(toHop: count, attempt: attempt) { [context] result in
            switch result {
            case .failure(let error):
                if mayMultiplex { pool.endEstablishing(key, connection: nil, speaksHTTP1: false) }
                completion(.failure(error))
            case .success(let (layer, alpn)) where alpn == "h2":
                let hop = attempt.description(ofHop: count, negotiated: "h2")
                do {
                    let connection = try HTTP2RelayConnection(over: layer, hop: hop, atEndOfTurn: context.loop.atEndOfTurn)
                    connection.start()
                    pool.endEstablishing(key, connection: connection, speaksHTTP1: false)
                    let stream = connection.makeStream(authority: target.description, headers: relay.fieldPairs, nextHop: nextHop)
                    context.connect(stream, hop: count, attempt: attempt, completion: completion)
                } catch {
                    layer.close()
                    pool.endEstablishing(key, connection: nil, speaksHTTP1: false)
                    completion(.failure(RelayError(hop: hop, cause: .protocolError("\(error)"))))
                }
            case .success(let (layer, _)):
                if mayMultiplex { pool.endEstablishing(key, connection: nil, speaksHTTP1: true) }
                HTTP1ConnectConnector(context: context, usesTLS: relay.usesTLS)
                    .tunnel(over: layer, through: count, to: target, attempt: attempt, completion: completion)
            }
        }
    }
}
