/// HTTP/3 CONNECT (RFC 9114) over QUIC straight to the first hop: tunnels share one pooled
/// connection per relay endpoint (with its trust and headers), and ones that arrive during its
/// handshake wait for it.
struct HTTP3ConnectConnector: HTTP3HopConnector {
    let context: ChainContext

    init(context: ChainContext, relay: RelayEndpoint, index: Int) { self.context = context }
    init(context: ChainContext) { self.context = context }

    /// The pooled connection to the first hop.
    func connection(toHop index: Int, attempt: ChainAttempt,
                    completion: @escaping (Result<HTTP3RelayConnection, RelayError>) -> Void) {
        precondition(index == 1, "QUIC to a later hop runs inside CONNECT-UDP")
        let relay = attempt.hops[0]
        let hop = Self.describe(relay, index: 1, negotiated: nil)
        attempt.currentHop = hop
        let make: HTTP3ConnectionPool.Make = { [context] made in
            do throws(TLSSetupError) {
                made(.success(try HTTP3RelayConnection(loop: context.loop, relay: relay, hop: hop, resolver: context.resolver)))
            } catch {
                made(.failure(RelayError(hop: hop, cause: .tls(error.reason))))
            }
        }
        pooledConnection(toHop: 1, hop: hop, attempt: attempt, make: make, completion: completion)
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

/// A hop reached over an HTTP/3 connection (QUIC straight to the first hop, or inside a
/// CONNECT-UDP stream beyond it): named, placed, pooled by chain prefix and tunnelled through the
/// same way; each connector says only how its connection is made. No liveness probe.
protocol HTTP3HopConnector: HopConnector {
    var context: ChainContext { get }
    /// The HTTP/3 connection to hop `index`, pooled or new.
    func connection(toHop index: Int, attempt: ChainAttempt,
                    completion: @escaping (Result<HTTP3RelayConnection, RelayError>) -> Void)
}

extension HTTP3HopConnector {
    static func describe(_ relay: RelayEndpoint, index: Int, negotiated alpn: String?) -> HopDescription {
        HopDescription(index: index, endpoint: relay.authority, protocolName: "QUIC, HTTP/3 CONNECT")
    }

    /// Its tunnels carry CONNECT-UDP streams, so QUIC to a later HTTP/3 hop can run inside them.
    static var carriesDatagrams: Bool { true }

    /// QUIC needs datagrams: behind a hop whose tunnels carry byte streams only it would need
    /// CONNECT-UDP over TCP (RFC 9298 capsules), which is not supported.
    static func placementProblem(behind previous: any HopConnector.Type) -> String? {
        previous.carriesDatagrams ? nil
            : "an HTTP/3 relay behind a hop whose tunnels carry no datagrams (HTTP/2, HTTP/1.1 or SOCKS5) needs CONNECT-UDP over TCP, which is not supported; speak h2 or auto to this hop"
    }

    /// Opens a CONNECT stream to `target` on the HTTP/3 connection to hop `count`, once there is
    /// one; a stream the relay turns away unprocessed (H3_REQUEST_REJECTED, GOAWAY) goes again.
    func openTunnel(through count: Int, to target: TunnelTarget, attempt: ChainAttempt,
                    completion: @escaping (Result<TransportLayer, RelayError>) -> Void) {
        connection(toHop: count, attempt: attempt) { [self] result in
            switch result {
            case .failure(let error):
                completion(.failure(error))
            case .success where attempt.isFinished:
                return  // timed out while it waited for a stream
            case .success(let connection):
                let stream = connection.makeStream(authority: target.description, headers: attempt.fields(ofHop: count),
                                                   nextHop: context.nextHop(after: count, attempt: attempt))
                context.connect(stream, hop: count, attempt: attempt) { result in
                    if case .failure = result, stream.wasRefusedUnprocessed, attempt.mayRetryRefusedStream(atHop: count) {
                        return openTunnel(through: count, to: target, attempt: attempt, completion: completion)
                    }
                    completion(result)
                }
            }
        }
    }

    /// The session's pooled connection to hop `index` (described as `hop`), made by `make` when
    /// there is none; the attempt notes whether it was reused.
    func pooledConnection(toHop index: Int, hop: HopDescription, attempt: ChainAttempt, make: @escaping HTTP3ConnectionPool.Make,
                          completion: @escaping (Result<HTTP3RelayConnection, RelayError>) -> Void) {
        context.http3Pool.connection(for: HTTP2ConnectConnector.key(hop: index, of: attempt.hops),
                                     opened: { [pool = context.pool] in pool.countConnection(toHop: index) }, make: make) { result in
            if case .success(let (connection, reused)) = result {
                attempt.note(hop: index, reused: reused)
                if reused { attempt.noteReused(connection, hop: index) }
                attempt.currentHop = hop
            }
            completion(result.map(\.connection))
        }
    }
}
