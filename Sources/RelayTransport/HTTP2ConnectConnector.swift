/// HTTP/2 CONNECT (RFC 9113) to an https relay, offered by ALPN: tunnels through the same chain
/// prefix share one connection, and ones that arrive while it is set up wait for it; a pooled
/// connection answers a PING as its liveness probe. A relay that picks http/1.1 is spoken to
/// with `HTTP1ConnectConnector` and remembered, unless h2 was insisted on (`RelayProtocol.http2`).
struct HTTP2ConnectConnector: HopConnector {
    let context: ChainContext
    /// True for `.http2`: offer h2 alone and fail when the relay does not pick it.
    let requiresHTTP2: Bool

    init(context: ChainContext, relay: RelayEndpoint, index: Int) {
        self.init(context: context, requiresHTTP2: relay.relayProtocol == .http2)
    }

    init(context: ChainContext, requiresHTTP2: Bool) {
        self.context = context
        self.requiresHTTP2 = requiresHTTP2
    }

    /// "HTTPS" until ALPN has chosen, then with the CONNECT spoken.
    static func describe(_ relay: RelayEndpoint, index: Int, negotiated alpn: String?) -> HopDescription {
        switch alpn {
        case "h2"?: return HopDescription(index: index, endpoint: relay.authority, protocolName: "HTTPS, HTTP/2 CONNECT")
        case .some: return HTTP1ConnectConnector.describe(relay, index: index, negotiated: alpn)
        case nil: return HopDescription(index: index, endpoint: relay.authority, protocolName: relay.usesTLS ? "HTTPS" : "HTTP")
        }
    }

    /// The hops (endpoint, trust, protocol and headers) up to and including hop `index`.
    static func key(hop index: Int, of hops: [RelayEndpoint]) -> RelayConnectionPool.Key { RelayConnectionPool.Key(hops[0..<index]) }

    func probe(hop index: Int, of hops: [RelayEndpoint], timeout: Double, completion: @escaping (Bool?) -> Void) {
        context.pool.probe(Self.key(hop: index, of: hops), timeout: timeout, completion: completion)
    }

    func openTunnel(through count: Int, to target: TunnelTarget, attempt: ChainAttempt,
                    completion: @escaping (Result<TransportLayer, RelayError>) -> Void) {
        let relay = attempt.hops[count - 1]
        guard relay.usesTLS else {
            let hop = Self.describe(relay, index: count, negotiated: nil)
            return completion(.failure(RelayError(hop: hop, cause: .unsupported("HTTP/2 to a relay needs an https:// relay URL"))))
        }
        let pool = context.pool
        let key = Self.key(hop: count, of: attempt.hops)
        let retry = { [context] in
            guard !attempt.isFinished else { return }  // timed out while it waited
            context.tunnel(through: count, to: target, attempt: attempt, completion: completion)
        }
        if let connection = pool.usableConnection(for: key) {
            attempt.note(hop: count, reused: true)
            return open(on: connection, through: count, to: target, attempt: attempt, retry: retry, completion: completion)
        }
        if pool.isEstablishing(key) {
            // Another tunnel is already connecting to this hop: wait and share its connection.
            return pool.wait(for: key, retry)
        }
        let mayMultiplex = !pool.speaksHTTP1(key)
        if mayMultiplex && !pool.mayOpenAnother(key) {
            // Every connection to the hop carries as many streams as the relay allows.
            return pool.waitForStream(key, retry)
        }
        if mayMultiplex { pool.beginEstablishing(key) }
        context.transport(toHop: count, attempt: attempt, alpn: requiresHTTP2 ? ["h2"] : ["h2", "http/1.1"]) { [self] result in
            switch result {
            case .failure(let error):
                if mayMultiplex { pool.endEstablishing(key, connection: nil, speaksHTTP1: false) }
                completion(.failure(error))
            case .success(let (layer, alpn)) where alpn == "h2":
                let hop = Self.describe(relay, index: count, negotiated: alpn)
                do {
                    let connection = try HTTP2RelayConnection(over: layer, hop: hop, atEndOfTurn: context.loop.atEndOfTurn)
                    // This tunnel's CONNECT leaves with the preface; the ones waiting go once the
                    // relay's SETTINGS tell how many streams it takes.
                    pool.hold(connection, whileEstablishing: key)
                    connection.onPeerSettings = { [weak connection] in
                        pool.endEstablishing(key, connection: connection, speaksHTTP1: false)
                    }
                    connection.start()
                    open(on: connection, through: count, to: target, attempt: attempt, retry: retry, completion: completion)
                } catch {
                    layer.close()
                    pool.endEstablishing(key, connection: nil, speaksHTTP1: false)
                    completion(.failure(RelayError(hop: hop, cause: .protocolError("\(error)"))))
                }
            case .success(let (layer, alpn)) where requiresHTTP2:
                layer.close()
                if mayMultiplex { pool.endEstablishing(key, connection: nil, speaksHTTP1: false) }
                completion(.failure(RelayError(hop: Self.describe(relay, index: count, negotiated: nil),
                                               cause: .protocolNotOffered(wanted: "HTTP/2 (h2)", offered: alpn ?? "none"))))
            case .success(let (layer, _)):
                if mayMultiplex { pool.endEstablishing(key, connection: nil, speaksHTTP1: true) }
                HTTP1ConnectConnector(context: context).tunnel(over: layer, through: count, to: target, attempt: attempt, completion: completion)
            }
        }
    }

    /// Sends the CONNECT on `connection`; a stream the relay turns away unprocessed (its limit
    /// was lower than it had said, or it is going away) goes again by `retry`, which picks a
    /// connection anew.
    private func open(on connection: HTTP2RelayConnection, through count: Int, to target: TunnelTarget, attempt: ChainAttempt,
                      retry: @escaping () -> Void, completion: @escaping (Result<TransportLayer, RelayError>) -> Void) {
        let stream = connection.makeStream(authority: target.description, headers: attempt.fields(ofHop: count),
                                           nextHop: context.nextHop(after: count, attempt: attempt))
        context.connect(stream, hop: count, attempt: attempt) { result in
            if case .failure = result, stream.wasRefusedUnprocessed, attempt.mayRetryRefusedStream(atHop: count) { return retry() }
            completion(result)
        }
    }
}
