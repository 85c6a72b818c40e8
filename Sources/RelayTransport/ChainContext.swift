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
    /// Answers a relay's 407 with a fresh credential for one retry of the chain (nil: a 407 fails).
    var proxyChallengeResponder: ProxyChallengeResponder?
    private var contexts: [TLSTrust: TLSContext] = [:]

    init(loop: EventLoop, idleTimeout: Double, http3HeadStart: Double, resolver: HostResolver?, maxConnectionsPerRelay: Int) {
        self.loop = loop
        self.http3HeadStart = http3HeadStart
        self.resolver = resolver
        pool = RelayConnectionPool(loop: loop, idleTimeout: idleTimeout, maxConnections: maxConnectionsPerRelay)
        http3Pool = HTTP3ConnectionPool(loop: loop, idleTimeout: idleTimeout, maxConnections: maxConnectionsPerRelay)
    }

    /// The connector of hop `index` of `hops`, from the registry.
    func connector(forHop index: Int, of hops: [RelayEndpoint]) -> any HopConnector {
        HopRegistry.connector(for: hops[index - 1], index: index).init(context: self, relay: hops[index - 1], index: index)
    }

    /// Opens a tunnel through the attempt's first `count` hops with the connector of hop `count`.
    func tunnel(through count: Int, to target: TunnelTarget, attempt: ChainAttempt,
                completion: @escaping (Result<TransportLayer, RelayError>) -> Void) {
        connector(forHop: count, of: attempt.hops).openTunnel(through: count, to: target, attempt: attempt, completion: completion)
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
            case .failure(var error):
                if case .tunnelRefused(status: 407, _) = error.cause, let answer = layer as? ConnectAnswer {
                    error.proxyAuthenticate = answer.proxyAuthenticate
                }
                layer.close()
                completion(.failure(error))
            }
        }
    }

    /// A fresh connection to hop `index` over TCP (to the first hop) or a tunnel through the
    /// hops before, with TLS offering `alpn` when it is not nil (a hop without TLS: nil);
    /// returns the layer and the ALPN protocol the hop's TLS chose (nil without TLS or answer).
    func transport(toHop index: Int, attempt: ChainAttempt, alpn: [String]?,
                   completion: @escaping (Result<(TransportLayer, String?), RelayError>) -> Void) {
        let relay = attempt.hops[index - 1]
        let hop = attempt.description(ofHop: index, negotiated: nil)
        let withTransport: (Result<TransportLayer, RelayError>) -> Void = { [self] result in
            guard case .success(let transport) = result else {
                if case .failure(let error) = result { completion(.failure(error)) }
                return
            }
            pool.countConnection(toHop: index)
            guard let alpn else { return completion(.success((transport, nil))) }
            let tls: TLSLayer
            do {
                tls = try TLSLayer(over: transport, context: tlsContext(for: relay.trust), serverName: relay.host, alpn: alpn, hop: hop)
            } catch {
                transport.close()
                return completion(.failure(RelayError(hop: hop, cause: .tls(String(describing: error)))))
            }
            attempt.currentHop = hop
            tls.connect { outcome in
                switch outcome {
                case .failure(let error): completion(.failure(error))
                case .success: completion(.success((tls, tls.negotiatedALPN)))
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
