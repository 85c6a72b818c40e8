import RelayTransport

extension RelayError {
    /// Whether this failure of a chain of `chainLength` hops is the chain's (a relay that cannot
    /// be reached, refuses us, or cannot reach the next relay): what rests the chain in a
    /// `RelayPool`. The last relay's refusal to reach the target (its answer to the CONNECT, but
    /// 407; a SOCKS5 reply) is the target's: another chain would fare no better, and resting the
    /// chains for one dead host would take every other host's chain away.
    package func isChainFailure(chainLength: Int) -> Bool {
        guard hop.index == chainLength else { return true }
        switch cause {
        case .tunnelRefused(let status, _): return status == 407
        case .socksRefused: return false
        default: return true
        }
    }

    /// Whether the tunnel failed while it was being built, before anything went through it: a
    /// request that met it may be sent again on another chain.
    package var failedDuringSetup: Bool {
        switch cause {
        case .tunnelEndedEarly, .connectionLost: return false
        default: return true
        }
    }

    /// The transport's error again, from what a `FetchError` kept of it.
    init(_ failure: FetchError.RelayFailure) {
        self.init(hop: HopDescription(index: failure.hop.index, endpoint: failure.hop.endpoint, protocolName: failure.hop.protocolName),
                  cause: failure.cause.code)
    }
}
