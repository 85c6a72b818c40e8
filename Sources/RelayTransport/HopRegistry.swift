/// The one table of hop protocols: which `HopConnector` speaks to a hop, by the `RelayProtocol`
/// it is to be spoken in. The chain builder, its probes and RelayFetch's names for hops all ask
/// here, so a new protocol is one line (and its connector).
enum HopRegistry {
    /// The connector for hop `index` (1-based), `relay`.
    static func connector(for relay: RelayEndpoint, index: Int) -> any HopConnector.Type {
        switch relay.relayProtocol {
        case .automatic: return relay.usesTLS ? HTTP2ConnectConnector.self : HTTP1ConnectConnector.self
        case .http1: return HTTP1ConnectConnector.self
        case .http2: return HTTP2ConnectConnector.self
        case .http3 where relay.fallback != nil: return HTTP3RacingConnector.self
        case .http3: return index == 1 ? HTTP3ConnectConnector.self : QUICOverConnectUDPConnector.self
        case .socks5: return SOCKS5Connector.self
        }
    }

    /// How hop `index` of `hops` reads, as its connector names it.
    static func describe(hop index: Int, of hops: [RelayEndpoint], negotiated alpn: String?) -> HopDescription {
        let relay = hops[index - 1]
        return connector(for: relay, index: index).describe(relay, index: index, negotiated: alpn)
    }

    /// The first hop of `hops` that cannot sit behind the hop before it, with the reason.
    static func misplacedHop(in hops: [RelayEndpoint]) -> (index: Int, why: String)? {
        guard hops.count > 1 else { return nil }
        for index in 2...hops.count {
            let previous = connector(for: hops[index - 2], index: index - 1)
            if let why = connector(for: hops[index - 1], index: index).placementProblem(behind: previous) { return (index, why) }
        }
        return nil
    }
}
