import RelayTransport

/// How one exchange reaches its origin: direct, or through a chain of relays.
enum Route: Sendable {
    case direct
    case relayed(RelayedRoute)

    /// Hop descriptions for responses and `-v` output.
    var hopNames: [String] {
        guard case .relayed(let relayed) = self else { return [] }
        return relayed.hops.map(\.authority)
    }
}

/// A relayed route: the hops, the unresolved target, and who builds tunnels for it.
struct RelayedRoute: Sendable {
    let hops: [RelayEndpoint]
    let target: TunnelTarget
    let opener: TunnelOpener
}
