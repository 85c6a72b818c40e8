/// One relay as the transport sees it: where it is, how to trust it, what to tell it.
public struct RelayEndpoint: Sendable, Hashable {
    public var host: String
    public var port: UInt16
    /// TLS to the relay itself (an https:// relay URL); false for a plain http:// relay.
    public var usesTLS: Bool
    public var trust: TLSTrust
    /// Header fields sent to this relay only, on each CONNECT.
    public var headerFields: [HeaderField]

    public init(host: String, port: UInt16, usesTLS: Bool = true, trust: TLSTrust = .system, headerFields: [HeaderField] = []) {
        self.host = host
        self.port = port
        self.usesTLS = usesTLS
        self.trust = trust
        self.headerFields = headerFields
    }

    /// "host:port" as written in a CONNECT request.
    public var authority: String { ConnectRequest.authority(host: host, port: port) }
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
public struct TunnelTarget: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: UInt16
    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }
    public var description: String { ConnectRequest.authority(host: host, port: port) }
}

/// What `-v` prints for each hop once a tunnel is up.
public struct HopReport: Sendable, CustomStringConvertible {
    public let hop: HopDescription
    /// Seconds from the start of the chain until this hop's tunnel was open.
    public let connectedAfter: Double
    public var description: String {
        "\(hop): tunnel open after \(Int((connectedAfter * 1000).rounded())) ms"
    }
}
