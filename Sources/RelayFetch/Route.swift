import Foundation
import RelayTransport

/// How one exchange reaches its origin: direct, or through a chain of relays.
indirect enum Route: Sendable {
    case direct
    case relayed(RelayedRoute)
    /// Encapsulated and POSTed to an Oblivious HTTP relay, which is reached by `carrier`.
    case oblivious(ObliviousRoute)

    /// Hop descriptions for responses and `-v` output.
    var hopNames: [String] {
        switch self {
        case .direct: return []
        case .relayed(let relayed): return relayed.hops.map(\.authority)
        case .oblivious(let oblivious): return oblivious.carrier.hopNames + ["ohttp:" + oblivious.relayURL.absoluteString]
        }
    }
}

/// A relayed route: the hops, the unresolved target, and who builds tunnels for it.
struct RelayedRoute: Sendable {
    let hops: [RelayEndpoint]
    let target: TunnelTarget
    let opener: TunnelOpener
}

/// An Oblivious HTTP route: the relay resource, the gateway's key, the relay's own header fields,
/// and how the POST to the relay travels (direct, or through a relay chain).
struct ObliviousRoute: Sendable {
    let relayURL: URL
    let keyConfig: OHTTPKeyConfigRef
    let relayHeaderFields: [(name: String, value: String)]
    let carrier: Route
}
