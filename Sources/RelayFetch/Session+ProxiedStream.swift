import RelayTransport

/// How one stream a local proxy carried went, for its log line.
package struct ProxiedStreamReport: Sendable {
    /// The hops' endpoints, nearest the client first.
    package var chain: [String]
    package var bytesFromClient = 0
    package var bytesToClient = 0
    /// Why no tunnel opened (nil: it opened and has ended).
    package var failure: RelayError?

    package init(chain: [String], bytesFromClient: Int = 0, bytesToClient: Int = 0, failure: RelayError? = nil) {
        self.chain = chain
        self.bytesFromClient = bytesFromClient
        self.bytesToClient = bytesToClient
        self.failure = failure
    }
}

extension Session {
    /// The relay hops that carry a stream to `host` (bare, lower-case) now: the configuration
    /// `chains` picks (the first that covers it, or the pool's chain for it). Throws `.notRelayed`
    /// for a host none covers, whatever the configuration says about direct connections: a local
    /// proxy never connects directly, so a covered host cannot leak and an uncovered one is
    /// refused, not guessed at. An OHTTP configuration carries requests, not streams, and is
    /// refused the same way. With every chain of the pool resting, throws the last relay failure.
    package func relayHops(forHost host: String) throws(FetchError) -> [RelayEndpoint] {
        try Self.streamChain(forHost: host, chains: chains).hops
    }

    /// Whether a relay configuration that carries streams covers `host` (a proxy refuses the rest).
    package func relaysStreams(toHost host: String) -> Bool {
        configuration.proxyConfigurations.contains { $0.obliviousHTTP == nil && !$0.relayHops.isEmpty && $0.covers(host: host) }
    }

    /// Carries the connected client socket `fd` (non-blocking; now owned by the session) to
    /// `target` through the chain `relayHops(forHost:)` gives, on this session's transport: once
    /// the chain is built, `answer(nil, hops)` is written to the client, then `firstBytes` go into
    /// the tunnel and the two are joined. With a pool of chains (`RelayChainPolicy.failover`), a
    /// chain that fails is rested and the next chain the pool gives is tried, once per chain; when
    /// none is left (or none can be built), `answer(error, hops)` is written and the socket
    /// closed: never direct. `ended` hears once, on the session's loop, when the stream is over.
    package func carry(socket fd: Int32, to target: TunnelTarget, firstBytes: [UInt8],
                       answer: @escaping (RelayError?, Int) -> [UInt8], ended: @escaping (ProxiedStreamReport) -> Void) {
        let stream = ProxiedStream(fd: fd, target: target, firstBytes: firstBytes, chains: chains, opener: opener, answer: answer, ended: ended)
        if !opener.loop.execute({ stream.attempt(failovers: 0) }) {  // the session has ended
            stream.fail(RelayError(hop: HopDescription(index: 1, endpoint: "", protocolName: "relay"), cause: .closedDuringSetup), chain: [])
        }
    }

    /// The chain (index in a pool, if any) and hops for a stream to `host`.
    static func streamChain(forHost host: String, chains: RelayChainSelector) throws(FetchError) -> (chain: Int?, hops: [RelayEndpoint]) {
        guard let (index, proxy) = try chains.configuration(forHost: host), proxy.obliviousHTTP == nil else {
            throw FetchError(.notRelayed(host: host))
        }
        guard !proxy.relayHops.isEmpty else {
            throw FetchError(.invalidRelay(index: 0, reason: "a relay configuration covers \(host) but has no hops"))
        }
        var endpoints: [RelayEndpoint] = []
        for (offset, hop) in proxy.relayHops.enumerated() { endpoints.append(try hop.endpoint(index: offset + 1)) }
        return (chains.pool == nil ? nil : index, endpoints)
    }
}
