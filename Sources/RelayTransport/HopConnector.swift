/// One way of reaching a relay hop: given the chain so far, it opens a tunnel through hop
/// `index` to a target, over whatever the hop before provides (curl's connection filters, set
/// up hop by hop). `RelayChainBuilder.connector(forHop:index:)` picks one per hop; the builder
/// itself only walks the hops.
///
/// Adding a transport (say a SOCKS5 hop):
/// 1. a file with a type conforming to `HopConnector`: `name` as `-v` and errors show it;
///    `openTunnel` gets the layer under the hop from `context.transport(toHop:attempt:)` (TCP to
///    the first hop, a tunnel through the hops before otherwise; TLS when the hop is https),
///    runs its own handshake as a `TransportLayer` (greeting, CONNECT request) and hands it to
///    `context.connect(_:hop:attempt:completion:)`, which reports the hop as open; `poolKey`
///    says which tunnels may share a connection to the hop (nil: one connection per tunnel);
/// 2. a `HopProtocol` case for it (and its public twin in RelayFetch's `RelayProtocol`) and one
///    line in `RelayChainBuilder.connector(forHop:index:)`;
/// 3. the CLI's `--relay-protocol` value and an end-to-end test against a real server of that kind.
protocol HopConnector {
    associatedtype PoolKey: Hashable
    /// How the hop is spoken to, for `-v` and errors (e.g. "HTTPS, HTTP/2 CONNECT").
    var name: String { get }
    /// Which tunnels share a pooled connection to hop `index` of `hops` (nil: not pooled).
    func poolKey(hop index: Int, of hops: [RelayEndpoint]) -> PoolKey?
    /// Adjusts hop `index` of a new attempt before anything is sent (session memory: a hop that
    /// goes straight to its fallback, a port learnt from Alt-Svc).
    func prepare(hop index: Int, attempt: ChainAttempt)
    /// Opens a tunnel through the attempt's first `index` hops to `target`; `completion` runs once,
    /// on the loop, with the connected layer or the error of the hop that failed.
    func openTunnel(through index: Int, to target: TunnelTarget, attempt: ChainAttempt,
                    completion: @escaping (Result<TransportLayer, RelayError>) -> Void)
}

extension HopConnector {
    func prepare(hop index: Int, attempt: ChainAttempt) {}
}

/// What the connectors of one session share: the loop, the connection pools, TLS contexts and
/// what the session learnt about its relays. Loop thread only.
final class ChainContext {
    let loop: EventLoop
    let pool: RelayConnectionPool
    /// HTTP/3 connections by chain prefix: to first hops, and to later hops inside CONNECT-UDP streams.
    let http3Pool: HTTP3ConnectionPool
    /// HTTP/3 endpoints whose TCP fallback won the last race this session (QUIC unreachable or
    /// slower than the head start): later tunnels go straight to the fallback.
    var tcpPreferred: Set<String> = []
    /// HTTP/3 ports that first hops' TCP endpoints named in their CONNECT answers (Alt-Svc).
    var altServices = AltServiceMemory()
    let http3HeadStart: Double
    /// Resolves relay host names in place of the system resolver (nil: getaddrinfo).
    let resolver: HostResolver?
    private var contexts: [TLSTrust: TLSContext] = [:]

    init(loop: EventLoop, idleTimeout: Double, http3HeadStart: Double, resolver: HostResolver?) {
        self.loop = loop
        self.http3HeadStart = http3HeadStart
        self.resolver = resolver
        pool = RelayConnectionPool(loop: loop, idleTimeout: idleTimeout)
        http3Pool = HTTP3ConnectionPool(loop: loop, idleTimeout: idleTimeout)
    }

    /// Opens a tunnel through the attempt's first `count` hops with the connector of hop `count`.
    func tunnel(through count: Int, to target: TunnelTarget, attempt: ChainAttempt,
                completion: @escaping (Result<TransportLayer, RelayError>) -> Void) {
        RelayChainBuilder.connector(forHop: attempt.hops[count - 1], index: count, context: self)
            .openTunnel(through: count, to: target, attempt: attempt, completion: completion)
    }

    /// The description of the hop after `count`, told to hop `count` for its errors.
    func nextHop(after count: Int, attempt: ChainAttempt) -> HopDescription? {
        count < attempt.hops.count ? attempt.description(ofHop: count + 1, negotiated: nil) : nil
    }

    /// Connects the tunnel layer of hop `index`, recording its report on success.
    func connect(_ layer: TransportLayer, hop index: Int, attempt: ChainAttempt,
                 completion: @escaping (Result<TransportLayer, RelayError>) -> Void) {
        attempt.currentHop = layer.hop
        layer.connect { [self] result in
            switch result {
            case .success:
                attempt.recordOpen(hop: index, description: layer.hop)
                if index == 1, let value = (layer as? ConnectAnswer)?.altSvc { altServices.remember(value, from: attempt.hops[0]) }
                completion(.success(layer))
            case .failure(let error):
                layer.close()
                completion(.failure(error))
            }
        }
    }

    /// A fresh connection to hop `index` over TCP (to the first hop) or a tunnel through the
    /// hops before, TLS done when the hop uses it; returns the layer and the ALPN protocol
    /// chosen ("http/1.1" for plain relays).
    func transport(toHop index: Int, attempt: ChainAttempt,
                   completion: @escaping (Result<(TransportLayer, String), RelayError>) -> Void) {
        let relay = attempt.hops[index - 1]
        let hop = attempt.description(ofHop: index, negotiated: nil)
        let withTransport: (Result<TransportLayer, RelayError>) -> Void = { [self] result in
            guard case .success(let transport) = result else {
                if case .failure(let error) = result { completion(.failure(error)) }
                return
            }
            pool.countConnection(toHop: index)
            guard relay.usesTLS else {
                if relay.relayProtocol == .http2 {
                    transport.close()
                    return completion(.failure(RelayError(hop: hop, cause: .unsupported("HTTP/2 to a relay needs an https:// relay URL"))))
                }
                return completion(.success((transport, "http/1.1")))
            }
            let tls: TLSLayer
            do {
                tls = try TLSLayer(over: transport, context: tlsContext(for: relay.trust), serverName: relay.host,
                                   alpn: relay.relayProtocol.alpn, hop: hop)
            } catch {
                transport.close()
                return completion(.failure(RelayError(hop: hop, cause: .tls(String(describing: error)))))
            }
            attempt.currentHop = hop
            tls.connect { outcome in
                switch outcome {
                case .failure(let error):
                    completion(.failure(error))
                case .success:
                    let alpn = tls.negotiatedALPN ?? "http/1.1"
                    if relay.relayProtocol == .http2 && alpn != "h2" {
                        tls.close()
                        completion(.failure(RelayError(hop: hop, cause: .protocolNotOffered(wanted: "HTTP/2 (h2)", offered: tls.negotiatedALPN ?? "none"))))
                    } else {
                        completion(.success((tls, alpn)))
                    }
                }
            }
        }
        if index == 1 {
            attempt.currentHop = hop
            let tcp = TCPLayer(loop: loop, host: relay.host, port: relay.port, hop: hop, resolver: resolver)
            tcp.connect { result in withTransport(result.map { tcp }) }
        } else {
            tunnel(through: index - 1, to: TunnelTarget(host: relay.host, port: relay.port), attempt: attempt, completion: withTransport)
        }
    }

    private func tlsContext(for trust: TLSTrust) throws -> TLSContext {
        if let context = contexts[trust] { return context }
        let context = try TLSContext(trust: trust)
        contexts[trust] = context
        return context
    }

    /// Closes every pooled relay connection (tunnels on them fail).
    func closeAll() {
        pool.closeAll()
        http3Pool.closeAll()
    }
}

extension RelayEndpoint {
    var fieldPairs: [(String, String)] { headerFields.map { ($0.name, $0.value) } }
}
