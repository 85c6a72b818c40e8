import Foundation
import RelayTransport

/// How one exchange reaches its origin: direct, or through a chain of relays.
indirect enum Route: Sendable {
    case direct
    case relayed(RelayedRoute)
    /// One HTTP/1.1 CONNECT hop that libcurl reaches itself, as its own proxy (no local bridge).
    case curlProxy(CurlProxyRoute)
    /// Encapsulated and POSTed to an Oblivious HTTP relay, which is reached by `carrier`.
    case oblivious(ObliviousRoute)

    /// Hop descriptions for responses and `-v` output.
    var hopNames: [String] {
        switch self {
        case .direct: return []
        case .relayed(let relayed): return relayed.hops.map(\.authority)
        case .curlProxy(let proxy): return [proxy.relay.authority]
        case .oblivious(let oblivious): return oblivious.carrier.hopNames + ["ohttp:" + oblivious.relayURL.absoluteString]
        }
    }
}

extension Route {
    /// True where only libcurl sees the origin's TLS stream end (direct, or libcurl's own proxy),
    /// so only it can tell a close_notify from a cut; through the bridge the transport tells.
    var libcurlSpeaksOriginTLS: Bool {
        switch self {
        case .direct, .curlProxy: return true
        case .relayed, .oblivious: return false
        }
    }

    /// The route through `hops` to `target`: libcurl's own proxy support when it can carry the
    /// hops, else tunnels that `opener` builds. The one place this is decided.
    static func through(_ hops: [RelayEndpoint], to target: TunnelTarget, opener: TunnelOpener) -> Route {
        if let proxy = CurlProxyRoute(hops: hops, target: target, opener: opener) { return .curlProxy(proxy) }
        return .relayed(RelayedRoute(hops: hops, target: target, opener: opener))
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
