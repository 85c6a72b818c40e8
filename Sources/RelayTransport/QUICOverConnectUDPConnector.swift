/// HTTP/3 CONNECT to a hop beyond the first: a CONNECT-UDP stream (RFC 9298) on the HTTP/3
/// connection to the hop before (which must be an HTTP/3 hop too) carries a QUIC connection to
/// this hop. That connection is pooled by chain prefix like the first hop's: later tunnels through
/// the same hops open a CONNECT stream on it, inside the same CONNECT-UDP stream, instead of a new
/// flow and handshake; once it has closed, idled out or drained, the next tunnel opens another.
struct QUICOverConnectUDPConnector: HTTP3HopConnector {
    let context: ChainContext

    init(context: ChainContext, relay: RelayEndpoint, index: Int) { self.context = context }
    init(context: ChainContext) { self.context = context }

    /// The pooled HTTP/3 connection to hop `index`, or a new one inside a CONNECT-UDP stream
    /// through hop `index - 1` (an HTTP/3 hop: the builder checked the placement).
    func connection(toHop index: Int, attempt: ChainAttempt,
                    completion: @escaping (Result<HTTP3RelayConnection, RelayError>) -> Void) {
        let hop = Self.describe(attempt.hops[index - 1], index: index, negotiated: nil)
        attempt.currentHop = hop
        let make: HTTP3ConnectionPool.Make = { made in makeConnection(toHop: index, attempt: attempt, completion: made) }
        pooledConnection(toHop: index, hop: hop, attempt: attempt, make: make, completion: completion)
    }

    /// Opens a CONNECT-UDP stream through hop `index - 1` to hop `index`'s UDP port and makes an
    /// HTTP/3 connection over it (not yet connected).
    private func makeConnection(toHop index: Int, attempt: ChainAttempt,
                                completion: @escaping (Result<HTTP3RelayConnection, RelayError>) -> Void) {
        let relay = attempt.hops[index - 1], previous = attempt.hops[index - 2]
        let hop = Self.describe(relay, index: index, negotiated: nil)
        HTTP3ConnectConnector.connection(toHop: index - 1, attempt: attempt, context: context) { [context] result in
            switch result {
            case .failure(let error):
                completion(.failure(error))
            case .success(let outer):
                let udp = outer.makeUDPStream(relay: previous, target: TunnelTarget(host: relay.host, port: relay.port), nextHop: hop)
                context.connect(udp, hop: index - 1, attempt: attempt) { opened in
                    switch opened {
                    case .failure(let error):
                        completion(.failure(error))
                    case .success:
                        attempt.currentHop = hop
                        do throws(TLSSetupError) {
                            completion(.success(try HTTP3RelayConnection(loop: context.loop, relay: relay, hop: hop,
                                                                         path: ConnectUDPDatagramPath(tunnel: udp, targetPort: relay.port))))
                        } catch {
                            udp.close()
                            completion(.failure(RelayError(hop: hop, cause: .tls(error.reason))))
                        }
                    }
                }
            }
        }
    }
}
