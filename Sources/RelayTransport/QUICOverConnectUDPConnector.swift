/// HTTP/3 CONNECT to a hop beyond the first: a CONNECT-UDP stream (RFC 9298) on the HTTP/3
/// connection to the hop before (which must be an HTTP/3 hop too) carries a QUIC connection to
/// this hop. Such a connection carries one tunnel and closes when it ends.
struct QUICOverConnectUDPConnector: HopConnector {
    let context: ChainContext

    var name: String { "QUIC, HTTP/3 CONNECT" }

    func poolKey(hop index: Int, of hops: [RelayEndpoint]) -> RelayEndpoint? { nil }

    func openTunnel(through count: Int, to target: TunnelTarget, attempt: ChainAttempt,
                    completion: @escaping (Result<TransportLayer, RelayError>) -> Void) {
        connection(toHop: count, attempt: attempt) { [context] result in
            openStream(on: result, through: count, to: target, attempt: attempt, context: context, completion: completion)
        }
    }

    /// A new HTTP/3 connection to hop `index` inside a CONNECT-UDP stream through hop `index - 1`.
    func connection(toHop index: Int, attempt: ChainAttempt,
                    completion: @escaping (Result<HTTP3RelayConnection, RelayError>) -> Void) {
        let relay = attempt.hops[index - 1]
        let hop = HTTP3RelayConnection.hopDescription(index: index, relay: relay)
        attempt.currentHop = hop
        let previous = attempt.hops[index - 2]
        guard previous.relayProtocol == .http3 else {
            let why = "an HTTP/3 relay after an HTTP/2 or HTTP/1.1 hop needs CONNECT-UDP over TCP, which is not supported; use --relay-protocol h2 or auto for hop \(index)"
            return completion(.failure(RelayError(hop: hop, cause: .unsupported(why))))
        }
        HTTP3ConnectConnector.connection(toHop: index - 1, attempt: attempt, context: context) { [context] result in
            switch result {
            case .failure(let error):
                completion(.failure(error))
            case .success(let outer):
                let udp = outer.makeUDPStream(relay: previous, target: TunnelTarget(host: relay.host, port: relay.port), nextHop: hop)
                context.connect(udp, hop: index - 1, attempt: attempt) { opened in
                    switch opened {
                    case .failure(let error): completion(.failure(error))
                    case .success: runQUIC(toHop: index, over: udp, attempt: attempt, completion: completion)
                    }
                }
            }
        }
    }

    /// Runs QUIC + HTTP/3 to hop `index` inside the open CONNECT-UDP stream `udp`.
    private func runQUIC(toHop index: Int, over udp: TransportLayer, attempt: ChainAttempt,
                         completion: @escaping (Result<HTTP3RelayConnection, RelayError>) -> Void) {
        let relay = attempt.hops[index - 1]
        let hop = HTTP3RelayConnection.hopDescription(index: index, relay: relay)
        let connection: HTTP3RelayConnection
        do {
            connection = try HTTP3RelayConnection(loop: context.loop, relay: relay, hop: hop,
                                                  path: ConnectUDPDatagramPath(tunnel: udp, targetPort: relay.port))
        } catch {
            udp.close()
            return completion(.failure(RelayError(hop: hop, cause: .tls(error.reason))))
        }
        context.pool.countConnection(toHop: index)
        attempt.note(hop: index, protocolName: hop.protocolName, reused: false)
        attempt.currentHop = hop
        let id = ObjectIdentifier(connection)
        context.tunneledHTTP3[id] = connection
        connection.onIdle = { [weak context, weak connection] in
            context?.tunneledHTTP3[id] = nil
            connection?.close()
        }
        connection.onClose = { [weak context] in context?.tunneledHTTP3[id] = nil }
        connection.connect { [weak context] result in
            switch result {
            case .success: completion(.success(connection))
            case .failure(let error):
                context?.tunneledHTTP3[id] = nil
                completion(.failure(error))
            }
        }
    }
}
