/// One relay as the transport sees it: where it is, how to trust it, what to tell it.
public struct RelayEndpoint: Sendable, Hashable {
    public var host: String
    public var port: UInt16
    /// TLS to the relay itself (an https:// relay URL); false for a plain http:// relay.
    public var usesTLS: Bool
    public var trust: TLSTrust
    /// Header fields sent to this relay only, on each CONNECT.
    public var headerFields: [HeaderField]
    /// Which HTTP version to speak to the relay.
    public var relayProtocol: HopProtocol
    /// For an HTTP/3 endpoint: the TCP endpoint (HTTP/2 or HTTP/1.1, by ALPN) to use when QUIC
    /// cannot connect, as `RelayHop(http3RelayEndpoint:http2RelayEndpoint:)` promises. Never a
    /// direct connection.
    public var fallback: RelayFallback?

    public init(host: String, port: UInt16, usesTLS: Bool = true, trust: TLSTrust = .system, headerFields: [HeaderField] = [],
                relayProtocol: HopProtocol = .automatic) {
        self.host = host
        self.port = port
        self.usesTLS = usesTLS
        self.trust = trust
        self.headerFields = headerFields
        self.relayProtocol = relayProtocol
    }

    /// "host:port" as written in a CONNECT request.
    public var authority: String { ConnectRequest.authority(host: host, port: port) }
}

/// Where to go when an HTTP/3 relay endpoint cannot be reached over QUIC: a host (kept as a name)
/// and a port, the same value as a tunnel's target.
public typealias RelayFallback = TunnelTarget

/// The HTTP version spoken to one relay.
public enum HopProtocol: String, Sendable, Hashable, CaseIterable {
    /// Offer h2 and http/1.1 by ALPN and speak whichever the relay picks (as curl and Chromium do).
    case automatic = "auto"
    /// HTTP/1.1 CONNECT only.
    case http1 = "h1"
    /// HTTP/2 CONNECT only; fails when the relay does not offer h2.
    case http2 = "h2"
    /// HTTP/3 CONNECT over QUIC: to the first hop, or to a later hop through an HTTP/3 hop
    /// (QUIC inside CONNECT-UDP); behind an HTTP/2 or HTTP/1.1 hop it is not supported.
    case http3 = "h3"

    var alpn: [String] {
        switch self {
        case .automatic: return ["h2", "http/1.1"]
        case .http2: return ["h2"]
        case .http1, .http3: return ["http/1.1"]
        }
    }
}

/// A header field name and value, in order.
public struct HeaderField: Sendable, Hashable {
    public var name: String
    public var value: String
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// Where a tunnel leads: a host name kept unresolved (the last relay resolves it) and a port.
/// Also a relay's fallback endpoint (`RelayFallback`).
public struct TunnelTarget: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: UInt16
    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }
    public var description: String { ConnectRequest.authority(host: host, port: port) }
}

/// When one hop's tunnel was open, once the chain is up (RelayFetch's `RelayHopTiming` for callers).
public struct HopReport: Sendable {
    public let hop: HopDescription
    /// Seconds from the start of the chain until this hop's tunnel was open.
    public let connectedAfter: Double
    /// True when the tunnel went over a multiplexed connection that was already open.
    public let reusedConnection: Bool
}
