/// Builds tunnels through a chain of relays, one hop at a time, nearest the client first:
/// TCP(hop 1) -> TLS(hop 1) -> CONNECT(hop 2) -> TLS(hop 2) -> ... -> CONNECT(target).
/// Each hop is reached by the `HopConnector` that `HopRegistry` picks for it (HTTP/1.1, HTTP/2 or
/// HTTP/3 CONNECT, QUIC inside CONNECT-UDP, HTTP/3 raced with TCP, or SOCKS5); the builder only
/// walks the hops, after checking that each may sit behind the one before. HTTP/2 and HTTP/3
/// connections are pooled per chain prefix, so all tunnels through the same first hop share one
/// connection, and tunnels to the same second hop through it share one connection to that hop.
///
/// It is the only code that opens sockets for relayed traffic, and it has no path that reaches a
/// target without the relays: an empty chain is refused and a failed hop fails the whole build.
/// A builder (its pools, TLS contexts and session state) belongs to one session. Loop thread only.
package final class RelayChainBuilder {
    let loop: EventLoop
    let context: ChainContext

    /// - Parameter idleTimeout: seconds an HTTP/2 or HTTP/3 relay connection with no tunnels stays open.
    /// - Parameter http3HeadStart: seconds QUIC runs alone before a hop's TCP fallback is raced against it.
    /// - Parameter resolver: resolves the first hop's host name (nil: the system resolver).
    /// - Parameter maxConnectionsPerRelay: HTTP/2 or HTTP/3 connections one chain prefix may have
    ///   open when each carries as many tunnels as its relay allows; beyond, tunnels wait for a stream.
    package init(loop: EventLoop, idleTimeout: Double = 60, http3HeadStart: Double = 0.3, resolver: HostResolver? = nil,
                 maxConnectionsPerRelay: Int = 16) {
        self.loop = loop
        context = ChainContext(loop: loop, idleTimeout: idleTimeout, http3HeadStart: http3HeadStart, resolver: resolver,
                               maxConnectionsPerRelay: maxConnectionsPerRelay)
    }

    /// How hop `index` (`relay`) reads in `-v`, errors and HAR before anything is negotiated,
    /// as its connector names it (for routes that reach the hop without a builder).
    package static func description(ofHop relay: RelayEndpoint, index: Int) -> HopDescription {
        HopRegistry.connector(for: relay, index: index).describe(relay, index: index, negotiated: nil)
    }

    /// Whether `relay`, as a first hop, is spoken to with HTTP/1.1 CONNECT and nothing else
    /// (what libcurl's own proxy support can do in the builder's place).
    package static func speaksHTTP1Connect(_ relay: RelayEndpoint) -> Bool {
        HopRegistry.connector(for: relay, index: 1) is HTTP1ConnectConnector.Type
    }

    /// How many connections this builder has opened to each hop (by 1-based index), for tests
    /// and benchmarks.
    package var connectionsOpened: [Int: Int] { context.pool.connectionsOpened }

    /// Answers relays' 407 challenges (Privacy Pass tokens) on any CONNECT: see `ProxyChallengeResponder`.
    package var proxyChallengeResponder: ProxyChallengeResponder? {
        get { context.proxyChallengeResponder }
        set { context.proxyChallengeResponder = newValue }
    }

    /// Closes every pooled relay connection (tunnels on them fail).
    package func closeAll() { context.closeAll() }

    /// Builds a tunnel to `target` through `hops`; `completion` is called once on the loop with the
    /// top layer, connected, or the error of the hop that failed (or timed out).
    /// Hops with a token source get its current token first (`HopTokenStage`); a 407 from such
    /// a hop gets it a new token and the chain is built once more, and a second 407 from it is
    /// `tokenRefused`. The chain is never built without a hop's token. A 407 that carries
    /// challenges goes to the `proxyChallengeResponder` (`buildAnswering`).
    package func build(hops: [RelayEndpoint], to target: TunnelTarget, connectTimeout: Double,
                      completion: @escaping (Result<(TransportLayer, [HopReport]), RelayError>) -> Void) {
        precondition(!hops.isEmpty, "a relayed tunnel needs at least one hop")
        guard hops.contains(where: { $0.tokenSource != nil }) else {
            return buildAnswering(hops: hops, to: target, connectTimeout: connectTimeout, completion: completion)
        }
        build(hops: hops, rejected: [:], to: target, connectTimeout: connectTimeout, completion: completion)
    }

    private func build(hops: [RelayEndpoint], rejected: [Int: String], to target: TunnelTarget, connectTimeout: Double,
                       completion: @escaping (Result<(TransportLayer, [HopReport]), RelayError>) -> Void) {
        HopTokenStage.fill(hops, rejected: rejected, loop: loop) { [self] filled in
            guard case .success(let (withTokens, tokens)) = filled else {
                if case .failure(let error) = filled { completion(.failure(error)) }
                return
            }
            buildAnswering(hops: withTokens, to: target, connectTimeout: connectTimeout) { [self] result in
                guard case .failure(let error) = result, case .tunnelRefused(407, let reason) = error.cause,
                      let token = tokens[error.hop.index] else { return completion(result) }
                guard rejected.isEmpty else {
                    let cause: RelayError.Cause = rejected[error.hop.index] != nil ? .tokenRefused(status: 407, reason: reason) : error.cause
                    return completion(.failure(RelayError(hop: error.hop, cause: cause)))
                }
                build(hops: hops, rejected: [error.hop.index: token], to: target, connectTimeout: connectTimeout, completion: completion)
            }
        }
    }

    /// Builds the chain; when a hop refuses it with a 407 that carries challenges, the responder's
    /// credential (a token issued for that very challenge) goes on that hop's CONNECT and the
    /// chain is built once more: a new connection for HTTP/1.1, a new stream on the pooled
    /// connection for HTTP/2 and HTTP/3. One answer per tunnel, so a relay cannot loop us: a
    /// refused retry fails as it is. Issuance time is not the relays' and runs outside the
    /// connect timer; the responder bounds it.
    private func buildAnswering(hops: [RelayEndpoint], to target: TunnelTarget, connectTimeout: Double,
                                completion: @escaping (Result<(TransportLayer, [HopReport]), RelayError>) -> Void) {
        buildChain(hops: hops, credentials: [:], to: target, connectTimeout: connectTimeout) { [self] result in
            guard case .failure(let error) = result, case .tunnelRefused(status: 407, _) = error.cause, !error.proxyAuthenticate.isEmpty,
                  let responder = context.proxyChallengeResponder else { return completion(result) }
            let index = error.hop.index
            let challenge = ProxyChallenge(hop: index, relay: hops[index - 1].authority, proxyAuthenticate: error.proxyAuthenticate)
            responder(challenge, loop.hopping { [self] (answer: Result<String?, TokenIssuanceFailure>) in
                switch answer {
                case .success(nil): completion(result)
                case .failure(let failure): completion(.failure(RelayError(hop: error.hop, cause: .tokenIssuanceFailed(failure))))
                case .success(let credential?):
                    buildChain(hops: hops, credentials: [index: credential], to: target, connectTimeout: connectTimeout, completion: completion)
                }
            })
        }
    }

    private func buildChain(hops: [RelayEndpoint], credentials: [Int: String], to target: TunnelTarget, connectTimeout: Double,
                            completion: @escaping (Result<(TransportLayer, [HopReport]), RelayError>) -> Void) {
        let attempt = ChainAttempt(hops: hops, started: EventLoop.nowNanos(), credentials: credentials)
        for index in 1...hops.count { context.connector(forHop: index, of: attempt.hops).prepare(hop: index, attempt: attempt) }
        let timer = loop.schedule(after: connectTimeout) {
            attempt.retireReusedConnection(atHop: attempt.currentHop.index)
            attempt.finish(.failure(RelayError(hop: attempt.currentHop, cause: .timeout)))
        }
        attempt.onFinish = { [loop] result in
            loop.cancelTimer(timer)
            switch result {
            case .success(let layer): completion(.success((layer, attempt.reports)))
            case .failure(let error): completion(.failure(error))
            }
        }
        if let (index, why) = HopRegistry.misplacedHop(in: attempt.hops) {
            return attempt.finish(.failure(RelayError(hop: attempt.description(ofHop: index, negotiated: nil), cause: .unsupported(why))))
        }
        context.tunnel(through: hops.count, to: target, attempt: attempt) { result in attempt.finish(result) }
    }

    /// Probes each hop of `hops` with its connector's liveness probe (a PING on a pooled HTTP/2
    /// connection): per hop, true (answered within `timeout`), false (did not) or nil (cannot be
    /// probed: no pooled connection, or HTTP/1.1, HTTP/3 or SOCKS5).
    package func probe(hops: [RelayEndpoint], timeout: Double, completion: @escaping ([Bool?]) -> Void) {
        var results = [Bool?](repeating: nil, count: hops.count)
        var pending = hops.count
        guard pending > 0 else { return completion([]) }
        for count in 1...hops.count {
            context.connector(forHop: count, of: hops).probe(hop: count, of: hops, timeout: timeout) { alive in
                results[count - 1] = alive
                pending -= 1
                if pending == 0 { completion(results) }
            }
        }
    }
}
