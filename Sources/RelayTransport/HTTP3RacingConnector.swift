/// HTTP/3 first, Happy Eyeballs style, for a hop with a TCP fallback: `preferred` (QUIC) starts
/// first, `fallback` (the TCP side, on the hop swapped for its fallback endpoint) after the
/// session's head start, at once when QUIC fails to reach the relay, and the first tunnel up
/// carries the traffic. Which one won is remembered for the session; a QUIC connection that
/// comes up late makes later tunnels prefer QUIC again. Refusals (407, TLS trust, pins) never
/// fall back. A first hop known by name whose HTTPS record lists no h3 goes straight to TCP.
struct HTTP3RacingConnector: HopConnector {
    let context: ChainContext
    let preferred: any HopConnector
    let fallback: any HopConnector

    init(context: ChainContext, relay: RelayEndpoint, index: Int) {
        self.context = context
        preferred = index == 1 ? HTTP3ConnectConnector(context: context) : QUICOverConnectUDPConnector(context: context)
        fallback = HTTP2ConnectConnector(context: context, requiresHTTP2: false)
    }

    /// Named as the hop the user named (its TCP endpoint) until one side has won; the winner
    /// then names the hop in reports.
    static func describe(_ relay: RelayEndpoint, index: Int, negotiated alpn: String?) -> HopDescription {
        HTTP2ConnectConnector.describe(relay.tcpFallback ?? relay, index: index, negotiated: alpn)
    }

    /// A later hop's QUIC may run inside this hop's CONNECT-UDP streams (through its QUIC side).
    static var carriesDatagrams: Bool { true }

    /// A first hop whose TCP side answered with Alt-Svc h3 on another port is tried there; a hop
    /// whose fallback won before in this session, or behind a hop that speaks TCP (where QUIC
    /// would need CONNECT-UDP over TCP), goes straight to its fallback.
    func prepare(hop index: Int, attempt: ChainAttempt) {
        let relay = attempt.hops[index - 1]
        if index == 1, relay.fallback == RelayFallback(host: relay.host, port: relay.port),
           let port = context.altServices.http3Port(for: relay.authority) {
            attempt.useHTTP3Port(port, hop: 1)
        }
        let behindTCP = index > 1
            && QUICOverConnectUDPConnector.placementProblem(behind: HopRegistry.connector(for: attempt.hops[index - 2], index: index - 1)) != nil
        if behindTCP || context.tcpPreferred.contains(attempt.hops[index - 1].authority) { attempt.fallBack(hop: index) }
    }

    func openTunnel(through count: Int, to target: TunnelTarget, attempt: ChainAttempt,
                    completion: @escaping (Result<TransportLayer, RelayError>) -> Void) {
        let relay = attempt.hops[count - 1]
        guard count == 1, let resolver = context.resolver, SocketAddress.literal(relay.host, port: relay.port) == nil else {
            return race(through: count, to: target, attempt: attempt, completion: completion)
        }
        // The relay's HTTPS record, asked with its addresses: one without h3 means TCP only, and
        // its port is where QUIC is tried.
        resolver.serviceHint(host: relay.host, completion: context.loop.hopping { [context] result in
            switch result {
            case .failure(let why):  // told as the hop the user named, not as its QUIC side
                completion(.failure(RelayError(hop: Self.describe(relay, index: count, negotiated: nil), cause: .resolveFailed(why.reason))))
            case .success(let hint):
                if let port = hint?.port, port != relay.port, relay.fallback == RelayFallback(host: relay.host, port: relay.port) {
                    attempt.useHTTP3Port(port, hop: count)
                }
                if hint?.offersHTTP3 == false || context.tcpPreferred.contains(attempt.hops[count - 1].authority) {
                    context.tcpPreferred.insert(attempt.hops[count - 1].authority)
                    attempt.fallBack(hop: count)
                    fallback.openTunnel(through: count, to: target, attempt: attempt, completion: completion)
                } else {
                    race(through: count, to: target, attempt: attempt, completion: completion)
                }
            }
        })
    }

    private func race(through count: Int, to target: TunnelTarget, attempt: ChainAttempt,
                      completion: @escaping (Result<TransportLayer, RelayError>) -> Void) {
        let relay = attempt.hops[count - 1]
        let loop = context.loop
        let race = HappyEyeballsRace(completion: completion)
        // The TCP side runs on a copy of the attempt with this hop swapped for its fallback, so
        // the QUIC side's hops stay as they are until one side has won.
        let tcpAttempt = attempt.copy()
        tcpAttempt.fallBack(hop: count)
        let startTCP = { [context, fallback] in
            guard race.startSecond() else { return }
            fallback.openTunnel(through: count, to: target, attempt: tcpAttempt) { result in
                if case .success = result, !race.isSettled {
                    context.tcpPreferred.insert(relay.authority)
                    attempt.adopt(tcpAttempt)
                }
                race.secondFinished(result)
            }
        }
        let timer = loop.schedule(after: context.http3HeadStart) { startTCP() }
        preferred.openTunnel(through: count, to: target, attempt: attempt) { [context] result in
            switch result {
            case .success:
                context.tcpPreferred.remove(relay.authority)  // QUIC answers: later tunnels use it
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
                    context.tcpPreferred.insert(relay.authority)
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
}
