import Foundation
import RelayTransport

/// A route of exactly one relay spoken to with HTTP/1.1 CONNECT (an https:// relay whose
/// protocol is h1, or an http:// relay), which libcurl reaches as its own proxy: it dials the
/// relay, does the relay's TLS as the hop's trust policy says, sends the CONNECT with the hop's
/// header fields only, and runs the origin's TLS and HTTP inside, with no local bridge between.
/// libcurl never goes direct with a proxy set, and tunnels http:// origins too (never the
/// absolute form), so the origin's name travels in the CONNECT only.
struct CurlProxyRoute: Sendable {
    let relay: RelayEndpoint
    let target: TunnelTarget
    /// The session's opener: it counts the connections to the relay and tells `-v` of tunnels.
    let opener: TunnelOpener

    /// nil unless `hops` is one hop that the chain builder would reach with HTTP/1.1 CONNECT.
    init?(hops: [RelayEndpoint], target: TunnelTarget, opener: TunnelOpener) {
        guard hops.count == 1, let relay = hops.first, relay.fallback == nil else { return nil }
        switch relay.relayProtocol {
        case .http1: break
        case .automatic where !relay.usesTLS: break
        case .automatic, .http2, .http3: return nil
        }
        self.relay = relay
        self.target = target
        self.opener = opener
    }

    /// The hop as errors and `-v` name it, as the chain builder names an HTTP/1.1 hop.
    var hop: HopDescription {
        HopDescription(index: 1, endpoint: relay.authority, protocolName: (relay.usesTLS ? "HTTPS" : "HTTP") + ", HTTP/1.1 CONNECT")
    }

    /// The relay as libcurl's proxy URL.
    var proxyURL: String { (relay.usesTLS ? "https://" : "http://") + relay.authority }
}
