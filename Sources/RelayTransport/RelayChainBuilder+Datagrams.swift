extension RelayChainBuilder {
    /// Opens a CONNECT-UDP flow (RFC 9298) to `target`'s UDP port through `hops`, whose last hop
    /// must be an HTTP/3 hop without a TCP fallback (`--relay-protocol h3`): the hops before it
    /// carry its QUIC connection as for any chain. `completion` is called once on the loop with
    /// the flow, or the error of the hop that failed (`.unsupported` when the chain cannot carry
    /// UDP at all).
    package func openDatagramFlow(hops: [RelayEndpoint], to target: TunnelTarget, connectTimeout: Double,
                                  completion: @escaping (Result<DatagramFlow, RelayError>) -> Void) {
        precondition(!hops.isEmpty, "a relayed flow needs at least one hop")
        let attempt = ChainAttempt(hops: hops, started: EventLoop.nowNanos())
        let last = hops.count
        guard hops[last - 1].relayProtocol == .http3, hops[last - 1].fallback == nil else {
            let why = "hop \(last) cannot carry UDP: only an HTTP/3 hop without a TCP fallback opens CONNECT-UDP flows"
            return completion(.failure(RelayError(hop: attempt.description(ofHop: last, negotiated: nil), cause: .unsupported(why))))
        }
        if let (index, why) = HopRegistry.misplacedHop(in: hops) {
            return completion(.failure(RelayError(hop: attempt.description(ofHop: index, negotiated: nil), cause: .unsupported(why))))
        }
        for index in 1...last { context.connector(forHop: index, of: hops).prepare(hop: index, attempt: attempt) }
        let timer = loop.schedule(after: connectTimeout) {
            attempt.finish(.failure(RelayError(hop: attempt.currentHop, cause: .timeout)))
        }
        attempt.onFinish = { [loop] result in
            loop.cancelTimer(timer)
            completion(result.map { DatagramFlow(stream: $0) })
        }
        HTTP3ConnectConnector.connection(toHop: last, attempt: attempt, context: context) { [context] result in
            switch result {
            case .failure(let error):
                attempt.finish(.failure(error))
            case .success(let connection):
                let stream = connection.makeUDPStream(relay: hops[last - 1], target: target, nextHop: nil)
                context.connect(stream, hop: last, attempt: attempt) { attempt.finish($0) }
            }
        }
    }
}
