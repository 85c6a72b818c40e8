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

    /// First-hop HTTP/3 endpoints that could not be reached this session (their fallback is used).
    private var http3Unreachable: Set<String> = []
    private let http3AttemptTimeout: Double

    /// - Parameter idleTimeout: seconds an HTTP/2 or HTTP/3 relay connection with no tunnels stays open.
    /// - Parameter http3AttemptTimeout: seconds to wait for QUIC before using a hop's TCP fallback.
    public init(loop: EventLoop, idleTimeout: Double = 60, http3AttemptTimeout: Double = 1) {
        self.loop = loop
        self.http3AttemptTimeout = http3AttemptTimeout
        pool = RelayConnectionPool(loop: loop, idleTimeout: idleTimeout)
        http3Pool = HTTP3ConnectionPool(loop: loop, idleTimeout: idleTimeout)
    }

    /// How many connections this builder has opened to each hop (by 1-based index), for tests
    /// and benchmarks.
    public var connectionsOpened: [Int: Int] { pool.connectionsOpened }

    /// Closes every pooled relay connection (tunnels on them fail).
    public func closeAll() {
        pool.closeAll()
        http3Pool.closeAll()
    }

    /// Builds a tunnel to `target` through `hops`; `completion` is called once on the loop with the
    /// top layer, connected, or the error of the hop that failed (or timed out).
    public func build(hops: [RelayEndpoint], to target: TunnelTarget, connectTimeout: Double,
                      completion: @escaping (Result<(TransportLayer, [HopReport]), RelayError>) -> Void) {
        precondition(!hops.isEmpty, "a relayed tunnel needs at least one hop")
        let attempt = ChainAttempt(hops: hops, started: EventLoop.nowNanos())
        // HTTP/3 beyond the first hop needs CONNECT-UDP (not yet): such hops use their fallback;
        // a first hop whose QUIC endpoint failed before in this session goes straight to its fallback.
        for index in hops.indices where hops[index].relayProtocol == .http3 && hops[index].fallback != nil {
            if index > 0 || http3Unreachable.contains(hops[index].authority) { attempt.fallBack(hop: index + 1) }
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

    /// Opens a tunnel through the first `count` hops of the attempt's chain to `target`.
    private func openTunnel(through count: Int, to target: TunnelTarget, attempt: ChainAttempt,
                            completion: @escaping (Result<TransportLayer, RelayError>) -> Void) {
        let relay = attempt.hops[count - 1]
        let key = RelayConnectionPool.Key(attempt.hops[0..<count])
        let nextHop = count < attempt.hops.count ? attempt.description(ofHop: count + 1, negotiated: nil) : nil
        if relay.relayProtocol == .http3 {
            guard count == 1 else {  // beyond the first hop HTTP/3 needs CONNECT-UDP, which comes later
                return completion(.failure(RelayError(hop: HTTP3RelayConnection.hopDescription(index: count, relay: relay),
                                                      cause: .unsupported("HTTP/3 relays after the first hop are not available yet; use --relay-protocol h2 or auto for hop \(count)"))))
            }
            return openHTTP3TunnelWithFallback(to: target, attempt: attempt, nextHop: nextHop, completion: completion)
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

    // MARK: HTTP/3 first hop (begin)

    /// Opens a CONNECT stream on the pooled QUIC + HTTP/3 connection to the first hop.
    private func openHTTP3Tunnel(to target: TunnelTarget, attempt: ChainAttempt, nextHop: HopDescription?,
                                 completion: @escaping (Result<TransportLayer, RelayError>) -> Void) {
        let relay = attempt.hops[0]
        let hop = HTTP3RelayConnection.hopDescription(index: 1, relay: relay)
        attempt.currentHop = hop
        http3Pool.connection(to: relay, hop: hop, opened: { pool.countConnection(toHop: 1) }) { [self] result in
            switch result {
            case .failure(let error):
                completion(.failure(error))
            case .success(let (connection, reused)):
                attempt.note(hop: 1, protocolName: hop.protocolName, reused: reused)
                let stream = connection.makeStream(authority: target.description, headers: relay.fieldPairs, nextHop: nextHop)
                connect(stream, hop: 1, attempt: attempt, completion: completion)
            }
        }
    }

    /// HTTP/3 to the first hop, or, when QUIC cannot connect within `http3AttemptTimeout` (UDP
    /// blocked, nothing answering), the hop's TCP fallback endpoint; the failure is remembered
    /// for the session. Refusals (407, TLS trust, pins) never fall back.
    private func openHTTP3TunnelWithFallback(to target: TunnelTarget, attempt: ChainAttempt, nextHop: HopDescription?,
                                             completion: @escaping (Result<TransportLayer, RelayError>) -> Void) {
        let relay = attempt.hops[0]
        guard relay.fallback != nil else { return openHTTP3Tunnel(to: target, attempt: attempt, nextHop: nextHop, completion: completion) }
        var settled = false
        let fallBack = { [self] in
            http3Unreachable.insert(relay.authority)
            attempt.fallBack(hop: 1)
            openTunnel(through: 1, to: target, attempt: attempt, completion: completion)
        }
        let timer = loop.schedule(after: http3AttemptTimeout) {
            guard !settled else { return }
            settled = true
            fallBack()
        }
        openHTTP3Tunnel(to: target, attempt: attempt, nextHop: nextHop) { [self] result in
            guard !settled else {
                if case .success(let late) = result { late.close() }  // the fallback already carries this tunnel
                return
            }
            settled = true
            loop.cancelTimer(timer)
            switch result {
            case .failure(let error) where Self.isUnreachable(error.cause): fallBack()
            default: completion(result)
            }
        }
    }

    private static func isUnreachable(_ cause: RelayError.Cause) -> Bool {
        switch cause {
        case .connectionRefused, .connectFailed, .timeout, .closedDuringSetup: return true
        default: return false
        }
    }

    // MARK: HTTP/3 first hop (end)

    /// Connects the tunnel layer of hop `index`, recording its report on success.
    private func connect(_ layer: TransportLayer, hop index: Int, attempt: ChainAttempt,
                         completion: @escaping (Result<TransportLayer, RelayError>) -> Void) {
        attempt.currentHop = layer.hop
        layer.connect { result in
            switch result {
            case .success:
                attempt.recordOpen(hop: index, description: layer.hop)
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
            let tcp = TCPLayer(loop: loop, host: relay.host, port: relay.port, hop: hop)
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
