/// QUIC to an origin that speaks HTTP/3: straight to it, or end to end inside a CONNECT-UDP
/// stream (RFC 9298) through the last of a chain of HTTP/3 relays, as `QUICOverConnectUDPConnector`
/// reaches a later relay. No relay sees or alters the inner transport; the last one resolves the
/// origin's name. Connections are pooled by chain and origin in the session's HTTP/3 pool, so
/// requests to one origin multiplex on one QUIC connection. Loop thread only.
struct HTTP3OriginConnector {
    let context: ChainContext

    /// The origin as errors and `-v` name it (hop index 0).
    static func describe(_ origin: RelayEndpoint, tunnelled: Bool = false) -> HopDescription {
        HopDescription(index: 0, endpoint: origin.authority, protocolName: tunnelled ? "QUIC, HTTP/3 inside CONNECT-UDP" : "QUIC, HTTP/3")
    }

    /// The pooled connection to `origin` through `hops`, or a new one; `stalled` hears which hop
    /// (or the origin) a new connection is waiting on, for a timeout's error. With a connection
    /// this call set up comes how (`HTTP3ConnectionSetUp`, times from `started`); nil: it was open.
    func connection(to origin: RelayEndpoint, through hops: [RelayEndpoint], started: UInt64, stalled: @escaping (HopDescription) -> Void,
                    completion: @escaping (Result<(HTTP3RelayConnection, HTTP3ConnectionSetUp?), RelayError>) -> Void) {
        let hop = Self.describe(origin, tunnelled: !hops.isEmpty)
        var hopReports: [HopReport] = []
        var handshakeStarted = started
        let make: HTTP3ConnectionPool.Make = { made in
            if hops.isEmpty {
                stalled(hop)
                handshakeStarted = EventLoop.nowNanos()
                made(Self.makeConnection(loop: context.loop, origin: origin, hop: hop, path: nil, resolver: context.resolver))
            } else {
                makeConnection(to: origin, through: hops, hop: hop, stalled: stalled) { result, reports in
                    hopReports = reports
                    handshakeStarted = EventLoop.nowNanos()
                    made(result)
                }
            }
        }
        context.http3Pool.connection(for: RelayConnectionPool.Key((hops + [origin])[...]), opened: {}, make: make) { result in
            completion(result.map { connection, reused in
                func seconds(_ nanos: UInt64) -> Double { Double(nanos &- started) / 1e9 }
                let setUp = reused ? nil : HTTP3ConnectionSetUp(hopReports: hopReports, handshakeStarted: seconds(handshakeStarted),
                                                                connected: seconds(EventLoop.nowNanos()), origin: hop)
                return (connection, setUp)
            })
        }
    }

    /// Opens a CONNECT-UDP stream through the last hop to the origin's UDP port and makes an
    /// HTTP/3 connection over it (not yet connected); with it, the hops' reports.
    private func makeConnection(to origin: RelayEndpoint, through hops: [RelayEndpoint], hop: HopDescription,
                                stalled: @escaping (HopDescription) -> Void,
                                completion: @escaping (Result<HTTP3RelayConnection, RelayError>, [HopReport]) -> Void) {
        let attempt = ChainAttempt(hops: hops, started: EventLoop.nowNanos())
        let completion: (Result<HTTP3RelayConnection, RelayError>) -> Void = { completion($0, attempt.reports) }
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
