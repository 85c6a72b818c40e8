import HTTPCore

/// One relay as the transport sees it: where it is, how to trust it, what to tell it.
package struct RelayEndpoint: Sendable, Hashable {
    package var host: String
    package var port: UInt16
    /// TLS to the relay itself (an https:// relay URL); false for a plain http:// relay.
    package var usesTLS: Bool
    package var trust: TLSTrust
    /// Header fields sent to this relay only, on each CONNECT (checked where the hop is configured).
    package var headerFields: HTTPFields
    /// How to speak to the relay (which connector reaches it).
    package var relayProtocol: RelayProtocol
    /// The username and password of a hop that authenticates with them (SOCKS5); nil: none.
    package var credentials: RelayCredentials?
    /// For an HTTP/3 endpoint: the TCP endpoint (HTTP/2 or HTTP/1.1, by ALPN) to use when QUIC
    /// cannot connect, as `RelayHop(http3RelayEndpoint:http2RelayEndpoint:)` promises. Never a
    /// direct connection.
    package var fallback: RelayFallback?
    /// Where this hop's bearer token comes from, when it has one (sent as its
    /// `Proxy-Authorization` on its CONNECT only, refreshed once on a 407); nil: none.
    package var tokenSource: HopTokenReference?

    package init(host: String, port: UInt16, usesTLS: Bool = true, trust: TLSTrust = .system, headerFields: HTTPFields = [],
                relayProtocol: RelayProtocol = .automatic, credentials: RelayCredentials? = nil) {
        self.host = host
        self.port = port
        self.usesTLS = usesTLS
        self.trust = trust
        self.headerFields = headerFields
        self.relayProtocol = relayProtocol
        self.credentials = credentials
    }

    /// "host:port" as written in a CONNECT request.
    package var authority: String { ConnectRequest.authority(host: host, port: port) }
}

/// Where to go when an HTTP/3 relay endpoint cannot be reached over QUIC: a host (kept as a name)
/// and a port, the same value as a tunnel's target.
package typealias RelayFallback = TunnelTarget

extension RelayEndpoint {
    /// The TCP endpoint (h2 or http/1.1 by ALPN) that stands in for this HTTP/3 endpoint when
    /// QUIC cannot connect; nil when it has none.
    var tcpFallback: RelayEndpoint? {
        guard let fallback else { return nil }
        var replacement = self
        replacement.host = fallback.host
        replacement.port = fallback.port
        replacement.relayProtocol = .automatic
        replacement.usesTLS = true
        replacement.fallback = nil
        return replacement
    }
}

/// How one relay is spoken to: the HTTP version of its CONNECT, or SOCKS5. One enum for the
/// public API (RelayFetch's `RelayProtocol`) and the chain builder, whose `HopRegistry` maps each
/// case to the connector that speaks it.
public enum RelayProtocol: String, Sendable, Hashable, CaseIterable {
    /// For a `RelayHop`: HTTP/3 first where QUIC can reach the relay, else h2 or http/1.1 by ALPN,
    /// as the relay picks. For a transport endpoint (which RelayFetch has already split into its
    /// QUIC side and TCP fallback): h2 or http/1.1 by ALPN over TLS, HTTP/1.1 in the clear.
    case automatic = "auto"
    /// HTTP/1.1 CONNECT only.
    case http1 = "h1"
    /// HTTP/2 CONNECT only; fails when the relay does not offer h2.
    case http2 = "h2"
    /// HTTP/3 CONNECT over QUIC: to the first hop, or to a later hop through an HTTP/3 hop
    /// (QUIC inside CONNECT-UDP); behind an HTTP/2, HTTP/1.1 or SOCKS5 hop it is not supported.
    case http3 = "h3"
    /// SOCKS5 CONNECT (RFC 1928) with the target's name, which the SOCKS server resolves, and
    /// username/password authentication (RFC 1929) when the hop has credentials. No TLS to the
    /// relay and no header fields; a `socks5://` relay URL chooses it.
    case socks5 = "socks5"
}

/// A username and password for a hop that authenticates with them (SOCKS5, RFC 1929). Each is
/// 1 to 255 bytes of UTF-8 on the wire.
package struct RelayCredentials: Sendable, Hashable {
    package var username: String
    package var password: String
    package init(username: String, password: String) {
        self.username = username
        self.password = password
    }
}

/// Where a tunnel leads: a host name kept unresolved (the last relay resolves it) and a port.
/// Also a relay's fallback endpoint (`RelayFallback`).
package struct TunnelTarget: Sendable, Hashable, CustomStringConvertible {
    package var host: String
    package var port: UInt16
    package init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }
    package var description: String { ConnectRequest.authority(host: host, port: port) }
}

/// When one hop's tunnel was open, once the chain is up (RelayFetch's `RelayHopTiming` for callers).
package struct HopReport: Sendable {
    package let hop: HopDescription
    /// Seconds from the start of the chain until this hop's tunnel was open.
    package let connectedAfter: Double
    /// True when the tunnel went over a multiplexed connection that was already open.
    package let reusedConnection: Bool

    package init(hop: HopDescription, connectedAfter: Double, reusedConnection: Bool) {
        self.hop = hop
        self.connectedAfter = connectedAfter
        self.reusedConnection = reusedConnection
    }
}
