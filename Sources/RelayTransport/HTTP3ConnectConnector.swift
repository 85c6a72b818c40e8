/// HTTP/3 CONNECT (RFC 9114) over QUIC straight to the first hop: tunnels share one pooled
/// connection per relay endpoint, and ones that arrive during its handshake wait for it.
struct HTTP3ConnectConnector: HopConnector {
    let context: ChainContext

    var name: String { "QUIC, HTTP/3 CONNECT" }

    func poolKey(hop index: Int, of hops: [RelayEndpoint]) -> RelayEndpoint? { index == 1 ? hops[0] : nil }

    func openTunnel(through count: Int, to target: TunnelTarget, attempt: ChainAttempt,
                    completion: @escaping (Result<TransportLayer, RelayError>) -> Void) {
        connection(toHop: count, attempt: attempt) { result in
            openStream(on: result, through: count, to: target, attempt: attempt, context: context, completion: completion)
        }
    }

    /// The pooled connection to the first hop.
    func connection(toHop index: Int, attempt: ChainAttempt,
                    completion: @escaping (Result<HTTP3RelayConnection, RelayError>) -> Void) {
        precondition(index == 1, "QUIC to a later hop runs inside CONNECT-UDP")
        let relay = attempt.hops[0]
        let hop = HTTP3RelayConnection.hopDescription(index: 1, relay: relay)
        attempt.currentHop = hop
        context.http3Pool.connection(to: relay, hop: hop, opened: { [pool = context.pool] in pool.countConnection(toHop: 1) }) { result in
            if case .success(let (_, reused)) = result { attempt.note(hop: 1, protocolName: hop.protocolName, reused: reused) }
            completion(result.map(\.connection))
        }
    }

    /// An HTTP/3 connection to hop `index` by whichever connector reaches it: direct QUIC to the
    /// first hop, QUIC inside CONNECT-UDP beyond it.
    static func connection(toHop index: Int, attempt: ChainAttempt, context: ChainContext,
                           completion: @escaping (Result<HTTP3RelayConnection, RelayError>) -> Void) {
        if index == 1 {
            HTTP3ConnectConnector(context: context).connection(toHop: index, attempt: attempt, completion: completion)
        } else {
            QUICOverConnectUDPConnector(context: context).connection(toHop: index, attempt: attempt, completion: completion)
        }
    }
}

/// Opens a CONNECT stream to `target` on the HTTP/3 connection to hop `count`, once there is one.
func openStream(on connection: Result<HTTP3RelayConnection, RelayError>, through count: Int, to target: TunnelTarget,
                attempt: ChainAttempt, context: ChainContext,
                completion: @escaping (Result<TransportLayer, RelayError>) -> Void) {
    switch connection {
    case .failure(let error):
        completion(.failure(error))
    case .success(let connection):
        let stream = connection.makeStream(authority: target.description, headers: attempt.hops[count - 1].fieldPairs,
                                           nextHop: context.nextHop(after: count, attempt: attempt))
        context.connect(stream, hop: count, attempt: attempt, completion: completion)
    }
}
