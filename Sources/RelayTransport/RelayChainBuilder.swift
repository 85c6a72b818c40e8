/// Builds tunnels through a chain of relays, one hop at a time, nearest the client first:
/// TCP(hop 1) -> TLS(hop 1) -> CONNECT(hop 2) -> TLS(hop 2) -> ... -> CONNECT(target).
/// Each hop speaks HTTP/1.1 or HTTP/2 CONNECT, as negotiated by ALPN or insisted on. HTTP/2
/// connections are pooled per chain prefix, so all tunnels through the same first hop share one
/// connection, and tunnels to the same second hop through it share one connection to that hop.
///
/// It is the only code that opens sockets for relayed traffic, and it has no path that reaches a
/// target without the relays: an empty chain is refused and a failed hop fails the whole build.
/// A builder (its pool, TLS contexts and session state) belongs to one session. Loop thread only.
public final class RelayChainBuilder {
    private let loop: EventLoop
    private var contexts: [TLSTrust: TLSContext] = [:]
    private let pool: RelayConnectionPool
    private let http3Pool: HTTP3ConnectionPool
    /// HTTP/3 connections to hops beyond the first, inside CONNECT-UDP streams: one per tunnel.
    private var tunneledHTTP3: [ObjectIdentifier: HTTP3RelayConnection] = [:]

    /// HTTP/3 endpoints whose TCP fallback won the last race this session (QUIC unreachable or
    /// slower than the head start): later tunnels go straight to the fallback.
    private var tcpPreferred: Set<String> = []
    /// HTTP/3 ports that first hops' TCP endpoints named in their CONNECT answers (Alt-Svc).
    private var altServices = AltServiceMemory()
    private let http3HeadStart: Double
    /// Resolves relay host names in place of the system resolver (nil: getaddrinfo).
    private let resolver: HostResolver?

    /// - Parameter idleTimeout: seconds an HTTP/2 or HTTP/3 relay connection with no tunnels stays open.
    /// - Parameter http3HeadStart: seconds QUIC runs alone before a hop's TCP fallback is raced against it.
    /// - Parameter resolver: resolves the first hop's host name (nil: the system resolver).
    public init(loop: EventLoop, idleTimeout: Double = 60, http3HeadStart: Double = 0.3, resolver: HostResolver? = nil) {
        self.loop = loop
        self.http3HeadStart = http3HeadStart
        self.resolver = resolver
        pool = RelayConnectionPool(loop: loop, idleTimeout: idleTimeout)
        http3Pool = HTTP3ConnectionPool(loop: loop, idleTimeout: idleTimeout, resolver: resolver)
    }

    /// How many connections this builder has opened to each hop (by 1-based index), for tests
    /// and benchmarks.
    public var connectionsOpened: [Int: Int] { pool.connectionsOpened }

    /// Closes every pooled relay connection (tunnels on them fail).
    public func closeAll() {
        pool.closeAll()
        let tunneled = Array(tunneledHTTP3.values)
        tunneledHTTP3.removeAll()
        for connection in tunneled { connection.close() }
        http3Pool.closeAll()
    }

    /// Builds a tunnel to `target` through `hops`; `completion` is called once on the loop with the
    /// top layer, connected, or the error of the hop that failed (or timed out).
    public func build(hops: [RelayEndpoint], to target: TunnelTarget, connectTimeout: Double,
                      completion: @escaping (Result<(TransportLayer, [HopReport]), RelayError>) -> Void) {
        precondition(!hops.isEmpty, "a relayed tunnel needs at least one hop")
        let attempt = ChainAttempt(hops: hops, started: EventLoop.nowNanos())
        // A first hop whose QUIC endpoint lost the race before in this session goes straight to its
        // fallback; HTTP/3 beyond the first hop is reached by CONNECT-UDP through an HTTP/3 hop
        // only, so behind a TCP hop (one that fell back, too) it uses its fallback.
        // A first hop whose TCP side answered with Alt-Svc h3 on another port is tried there.
        if let fallback = hops[0].fallback, hops[0].relayProtocol == .http3, fallback.host == hops[0].host, fallback.port == hops[0].port,
           let port = altServices.http3Port(for: hops[0].authority) {
            attempt.useHTTP3Port(port, hop: 1)
        }
        for index in hops.indices where attempt.hops[index].relayProtocol == .http3 && attempt.hops[index].fallback != nil {
            let behindTCP = index > 0 && attempt.hops[index - 1].relayProtocol != .http3
            if behindTCP || tcpPreferred.contains(attempt.hops[index].authority) { attempt.fallBack(hop: index + 1) }
        }
        let timer = loop.schedule(after: connectTimeout) {
            attempt.finish(.failure(RelayError(hop: attempt.currentHop, cause: .timeout)))
        }
        attempt.onFinish = { [loop] result in
            loop.cancelTimer(timer)
            switch result {
            case .success(let layer): completion(.success((layer, attempt.reports)))
            case .failure(let error): completion(.failure(error))
            }
        }
        openTunnel(through: hops.count, to: target, attempt: attempt) { result in attempt.finish(result) }
    }

    /// Probes each hop of `hops` that has a pooled HTTP/2 connection with a PING: per hop, true
    /// (answered within `timeout`), false (did not) or nil (cannot be probed: HTTP/1.1 or HTTP/3).
    public func probe(hops: [RelayEndpoint], timeout: Double, completion: @escaping ([Bool?]) -> Void) {
        var results = [Bool?](repeating: nil, count: hops.count)
        var pending = hops.count
        guard pending > 0 else { return completion([]) }
        for count in 1...hops.count {
            pool.probe(RelayConnectionPool.Key(hops[0..<count]), timeout: timeout) { alive in
                results[count - 1] = alive
                pending -= 1
                if pending == 0 { completion(results) }
            }
        }
    }

    /// Opens a tunnel through the first `count` hops of the attempt's chain to `target`.
    private func openTunnel(through count: Int, to target: TunnelTarget, attempt: ChainAttempt,
                            completion: @escaping (Result<TransportLayer, RelayError>) -> Void) {
        let relay = attempt.hops[count - 1]
        let key = RelayConnectionPool.Key(attempt.hops[0..<count])
        let nextHop = count < attempt.hops.count ? attempt.description(ofHop: count + 1, negotiated: nil) : nil
        if relay.relayProtocol == .http3 {
            return openHTTP3TunnelWithFallback(through: count, to: target, attempt: attempt, nextHop: nextHop, completion: completion)
        }
        if let connection = pool.usableConnection(for: key) {
            attempt.note(hop: count, protocolName: "HTTPS, HTTP/2 CONNECT", reused: true)
            let stream = connection.makeStream(authority: target.description, headers: relay.fieldPairs, nextHop: nextHop)
            return connect(stream, hop: count, attempt: attempt, completion: completion)
        }
        if pool.isEstablishing(key) {
            // Another tunnel is already connecting to this hop: wait and share its connection.
            pool.wait(for: key) { [self] in openTunnel(through: count, to: target, attempt: attempt, completion: completion) }
            return
        }
        let mayMultiplex = relay.usesTLS && relay.relayProtocol != .http1 && !pool.speaksHTTP1(key)
        if mayMultiplex { pool.beginEstablishing(key) }
        connectToHop(count, attempt: attempt) { [self] result in
            switch result {
            case .failure(let error):
                if mayMultiplex { pool.endEstablishing(key, connection: nil, speaksHTTP1: false) }
                completion(.failure(error))
            case .success(let (layer, alpn)):
                if alpn == "h2" {
                    let hop = attempt.description(ofHop: count, negotiated: "h2")
                    do {
                        let connection = try HTTP2RelayConnection(over: layer, hop: hop)
                        connection.start()
                        pool.endEstablishing(key, connection: connection, speaksHTTP1: false)
                        let stream = connection.makeStream(authority: target.description, headers: relay.fieldPairs, nextHop: nextHop)
                        connect(stream, hop: count, attempt: attempt, completion: completion)
                    } catch {
                        layer.close()
                        pool.endEstablishing(key, connection: nil, speaksHTTP1: false)
                        completion(.failure(RelayError(hop: hop, cause: .protocolError("\(error)"))))
                    }
                } else {
                    if mayMultiplex { pool.endEstablishing(key, connection: nil, speaksHTTP1: true) }
                    let hop = attempt.description(ofHop: count, negotiated: "http/1.1")
                    let tunnel = HTTP1ConnectLayer(over: layer, targetHost: target.host, targetPort: target.port,
                                                   headers: relay.fieldPairs, hop: hop, nextHop: nextHop)
                    connect(tunnel, hop: count, attempt: attempt, completion: completion)
                }
            }
        }
    }

    // MARK: HTTP/3 hops (begin)

    /// Opens a CONNECT stream on a QUIC + HTTP/3 connection to hop `count` (`openHTTP3Connection`).
    private func openHTTP3Tunnel(through count: Int, to target: TunnelTarget, attempt: ChainAttempt, nextHop: HopDescription?,
                                 completion: @escaping (Result<TransportLayer, RelayError>) -> Void) {
        let relay = attempt.hops[count - 1]
        openHTTP3Connection(toHop: count, attempt: attempt) { [self] result in
            switch result {
            case .failure(let error):
                completion(.failure(error))
            case .success(let connection):
                let stream = connection.makeStream(authority: target.description, headers: relay.fieldPairs, nextHop: nextHop)
                connect(stream, hop: count, attempt: attempt, completion: completion)
            }
        }
    }

    /// HTTP/3 to hop `count` raced against its TCP fallback, Happy Eyeballs style: QUIC starts
    /// first, TCP after `http3HeadStart` (at once when QUIC fails to reach the relay), and the
    /// first tunnel up carries the traffic. Which one won is remembered for the session; a QUIC
    /// connection that comes up late makes later tunnels prefer QUIC again. Refusals (407, TLS
    /// trust, pins) never fall back. A first hop known by name whose HTTPS record lists no h3 goes
    /// straight to TCP.
    private func openHTTP3TunnelWithFallback(through count: Int, to target: TunnelTarget, attempt: ChainAttempt, nextHop: HopDescription?,
                                             completion: @escaping (Result<TransportLayer, RelayError>) -> Void) {
        let relay = attempt.hops[count - 1]
        guard relay.fallback != nil else {
            return openHTTP3Tunnel(through: count, to: target, attempt: attempt, nextHop: nextHop, completion: completion)
        }
        guard count == 1, let resolver, SocketAddress.literal(relay.host, port: relay.port) == nil else {
            return raceHTTP3(through: count, to: target, attempt: attempt, nextHop: nextHop, completion: completion)
        }
        // The relay's HTTPS record, asked with its addresses: one without h3 means TCP only, and
        // its port is where QUIC is tried.
        resolver.serviceHint(host: relay.host) { [self] result in
            loop.execute { [self] in
                switch result {
                case .failure(let why):  // told as the hop the user named, not as its QUIC side
                    let named = attempt.copy()
                    named.fallBack(hop: count)
                    completion(.failure(RelayError(hop: named.description(ofHop: count, negotiated: nil), cause: .resolveFailed(why.reason))))
                case .success(let hint):
                    if let port = hint?.port, port != relay.port, relay.fallback == RelayFallback(host: relay.host, port: relay.port) { attempt.useHTTP3Port(port, hop: count) }
                    if hint?.offersHTTP3 == false || tcpPreferred.contains(attempt.hops[count - 1].authority) {
                        tcpPreferred.insert(attempt.hops[count - 1].authority)
                        attempt.fallBack(hop: count)
                        openTunnel(through: count, to: target, attempt: attempt, completion: completion)
                    } else {
                        raceHTTP3(through: count, to: target, attempt: attempt, nextHop: nextHop, completion: completion)
                    }
                }
            }
        }
    }

    private func raceHTTP3(through count: Int, to target: TunnelTarget, attempt: ChainAttempt, nextHop: HopDescription?,
                           completion: @escaping (Result<TransportLayer, RelayError>) -> Void) {
        let relay = attempt.hops[count - 1]
        let race = HappyEyeballsRace(completion: completion)
        // The TCP side runs on a copy of the attempt with this hop swapped for its fallback, so
        // the QUIC side's hops stay as they are until one side has won.
        let tcpAttempt = attempt.copy()
        tcpAttempt.fallBack(hop: count)
        let startTCP = { [self] in
            guard race.startSecond() else { return }
            openTunnel(through: count, to: target, attempt: tcpAttempt) { [self] result in
                if case .success = result, !race.isSettled {
                    tcpPreferred.insert(relay.authority)
                    attempt.adopt(tcpAttempt)
                }
                race.secondFinished(result)
            }
        }
        let timer = loop.schedule(after: http3HeadStart) { startTCP() }
        openHTTP3Tunnel(through: count, to: target, attempt: attempt, nextHop: nextHop) { [self] result in
            switch result {
            case .success:
                tcpPreferred.remove(relay.authority)  // QUIC answers: later tunnels use it
                loop.cancelTimer(timer)
                race.firstFinished(result, retryable: false)
            case .failure(let error) where (1..<count).contains(error.hop.index):
                // QUIC did not reach the hop before, whose own race runs on the TCP side: nothing
                // was learnt about this hop.
                let retryable = Self.isUnreachable(error.cause) || error.cause.isResolveFailure
                loop.cancelTimer(timer)
                if retryable { startTCP() }
                race.firstFinished(result, retryable: retryable)
            case .failure(let error) where error.cause.isResolveFailure && relay.fallback?.host == relay.host:
                // TCP would ask for the same name: the race ends here, told as the hop the user named.
                loop.cancelTimer(timer)
                race.firstFinished(.failure(RelayError(hop: tcpAttempt.description(ofHop: count, negotiated: nil), cause: error.cause)), retryable: false)
            case .failure(let error):
                let unreachable = Self.isUnreachable(error.cause) || error.cause.isResolveFailure  // another host
                if unreachable {
                    tcpPreferred.insert(relay.authority)
                    loop.cancelTimer(timer)
                    startTCP()
                }
                race.firstFinished(result, retryable: unreachable)
            }
        }
    }

    private static func isUnreachable(_ cause: RelayError.Cause) -> Bool {  // by QUIC; TCP may still get through
        switch cause {
        case .connectionRefused, .connectFailed, .connectionLost, .timeout, .closedDuringSetup: return true
        default: return false
        }
    }

    /// An HTTP/3 connection to hop `index`: the pooled one for the first hop; beyond it, a new
    /// one inside a CONNECT-UDP stream (RFC 9298) through the hop before, which must be an HTTP/3
    /// hop too. Such a connection carries one tunnel and closes when it ends.
    private func openHTTP3Connection(toHop index: Int, attempt: ChainAttempt,
                                     completion: @escaping (Result<HTTP3RelayConnection, RelayError>) -> Void) {
        let relay = attempt.hops[index - 1]
        let hop = HTTP3RelayConnection.hopDescription(index: index, relay: relay)
        attempt.currentHop = hop
        if index == 1 {
            http3Pool.connection(to: relay, hop: hop, opened: { [pool] in pool.countConnection(toHop: 1) }) { result in
                if case .success(let (_, reused)) = result { attempt.note(hop: 1, protocolName: hop.protocolName, reused: reused) }
                completion(result.map(\.connection))
            }
            return
        }
        let previous = attempt.hops[index - 2]
        guard previous.relayProtocol == .http3 else {
            let why = "an HTTP/3 relay after an HTTP/2 or HTTP/1.1 hop needs CONNECT-UDP over TCP, which is not supported; use --relay-protocol h2 or auto for hop \(index)"
            return completion(.failure(RelayError(hop: hop, cause: .unsupported(why))))
        }
        openHTTP3Connection(toHop: index - 1, attempt: attempt) { [self] result in
            switch result {
            case .failure(let error):
                completion(.failure(error))
            case .success(let outer):
                let udp = outer.makeUDPStream(relay: previous, target: TunnelTarget(host: relay.host, port: relay.port), nextHop: hop)
                connect(udp, hop: index - 1, attempt: attempt) { [self] opened in
                    switch opened {
                    case .failure(let error): completion(.failure(error))
                    case .success: connectHTTP3(toHop: index, over: udp, attempt: attempt, completion: completion)
                    }
                }
            }
        }
    }

    /// Runs QUIC + HTTP/3 to hop `index` inside the open CONNECT-UDP stream `udp`.
    private func connectHTTP3(toHop index: Int, over udp: TransportLayer, attempt: ChainAttempt,
                              completion: @escaping (Result<HTTP3RelayConnection, RelayError>) -> Void) {
        let relay = attempt.hops[index - 1]
        let hop = HTTP3RelayConnection.hopDescription(index: index, relay: relay)
        let connection: HTTP3RelayConnection
        do {
            connection = try HTTP3RelayConnection(loop: loop, relay: relay, hop: hop, path: ConnectUDPDatagramPath(tunnel: udp, targetPort: relay.port))
        } catch {
            udp.close()
            return completion(.failure(RelayError(hop: hop, cause: .tls(error.reason))))
        }
        pool.countConnection(toHop: index)
        attempt.note(hop: index, protocolName: hop.protocolName, reused: false)
        attempt.currentHop = hop
        let id = ObjectIdentifier(connection)
        tunneledHTTP3[id] = connection
        connection.onIdle = { [weak self, weak connection] in
            self?.tunneledHTTP3[id] = nil
            connection?.close()
        }
        connection.onClose = { [weak self] in self?.tunneledHTTP3[id] = nil }
        connection.connect { [weak self] result in
            switch result {
            case .success: completion(.success(connection))
            case .failure(let error):
                self?.tunneledHTTP3[id] = nil
                completion(.failure(error))
            }
        }
    }

    // MARK: HTTP/3 hops (end)

    /// Connects the tunnel layer of hop `index`, recording its report on success.
    private func connect(_ layer: TransportLayer, hop index: Int, attempt: ChainAttempt,
                         completion: @escaping (Result<TransportLayer, RelayError>) -> Void) {
        attempt.currentHop = layer.hop
        layer.connect { result in
            switch result {
            case .success:
                attempt.recordOpen(hop: index, description: layer.hop)
                if index == 1, let value = (layer as? ConnectAnswer)?.altSvc { self.altServices.remember(value, from: attempt.hops[0]) }
                completion(.success(layer))
            case .failure(let error):
                layer.close()
                completion(.failure(error))
            }
        }
    }

    /// A fresh connection to hop `index`, TLS done when the hop uses it; returns the layer and the
    /// ALPN protocol chosen ("http/1.1" for plain relays).
    private func connectToHop(_ index: Int, attempt: ChainAttempt,
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
                tls = try TLSLayer(over: transport, context: context(for: relay.trust), serverName: relay.host,
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
            openTunnel(through: index - 1, to: TunnelTarget(host: relay.host, port: relay.port), attempt: attempt, completion: withTransport)
        }
    }

    private func context(for trust: TLSTrust) throws -> TLSContext {
        if let context = contexts[trust] { return context }
        let context = try TLSContext(trust: trust)
        contexts[trust] = context
        return context
    }
}

extension RelayEndpoint {
    var fieldPairs: [(String, String)] { headerFields.map { ($0.name, $0.value) } }
}
