/// QUIC to an origin that speaks HTTP/3: straight to it, or end to end inside a CONNECT-UDP
/// stream (RFC 9298) through the last of a chain of HTTP/3 relays, as `QUICOverConnectUDPConnector`
/// reaches a later relay. No relay sees or alters the inner transport; the last one resolves the
/// origin's name. Connections are pooled by chain and origin in the session's HTTP/3 pool, so
/// requests to one origin multiplex on one QUIC connection. Loop thread only.
struct HTTP3OriginConnector {
    let context: ChainContext

    /// The origin as errors name it (hop index 0).
    static func describe(_ origin: RelayEndpoint) -> HopDescription {
        HopDescription(index: 0, endpoint: origin.authority, protocolName: "QUIC, HTTP/3")
    }

    /// The pooled connection to `origin` through `hops`, or a new one; `stalled` hears which hop
    /// (or the origin) a new connection is waiting on, for a timeout's error.
    func connection(to origin: RelayEndpoint, through hops: [RelayEndpoint], stalled: @escaping (HopDescription) -> Void,
                    completion: @escaping (Result<HTTP3RelayConnection, RelayError>) -> Void) {
        let hop = Self.describe(origin)
        let make: HTTP3ConnectionPool.Make = { made in
            if hops.isEmpty {
                stalled(hop)
                made(Self.makeConnection(loop: context.loop, origin: origin, hop: hop, path: nil, resolver: context.resolver))
            } else {
                makeConnection(to: origin, through: hops, hop: hop, stalled: stalled, completion: made)
            }
        }
        context.http3Pool.connection(for: RelayConnectionPool.Key((hops + [origin])[...]), opened: {}, make: make) { result in
            completion(result.map(\.connection))
        }
    }

    /// Opens a CONNECT-UDP stream through the last hop to the origin's UDP port and makes an
    /// HTTP/3 connection over it (not yet connected).
    private func makeConnection(to origin: RelayEndpoint, through hops: [RelayEndpoint], hop: HopDescription,
                                stalled: @escaping (HopDescription) -> Void,
                                completion: @escaping (Result<HTTP3RelayConnection, RelayError>) -> Void) {
        let attempt = ChainAttempt(hops: hops, started: EventLoop.nowNanos())
        if let (index, why) = HopRegistry.misplacedHop(in: hops) {
            return completion(.failure(RelayError(hop: attempt.description(ofHop: index, negotiated: nil), cause: .unsupported(why))))
        }
        let last = hops.count
        stalled(attempt.currentHop)
        HTTP3ConnectConnector.connection(toHop: last, attempt: attempt, context: context) { [context] result in
            switch result {
            case .failure(let error):
                completion(.failure(error))
            case .success(let outer):
                let udp = outer.makeUDPStream(relay: hops[last - 1], target: TunnelTarget(host: origin.host, port: origin.port), nextHop: hop)
                stalled(attempt.currentHop)
                context.connect(udp, hop: last, attempt: attempt) { opened in
                    switch opened {
                    case .failure(let error):
                        completion(.failure(error))
                    case .success:
                        stalled(hop)
                        let made = Self.makeConnection(loop: context.loop, origin: origin, hop: hop,
                                                       path: ConnectUDPDatagramPath(tunnel: udp, targetPort: origin.port), resolver: nil)
                        if case .failure = made { udp.close() }
                        completion(made)
                    }
                }
            }
        }
    }

    private static func makeConnection(loop: EventLoop, origin: RelayEndpoint, hop: HopDescription, path: QUICDatagramPath?,
                                       resolver: HostResolver?) -> Result<HTTP3RelayConnection, RelayError> {
        do throws(TLSSetupError) {
            return .success(try HTTP3RelayConnection(loop: loop, relay: origin, hop: hop, path: path, resolver: resolver))
        } catch {
            return .failure(RelayError(hop: hop, cause: .tls(error.reason)))
        }
    }
}
