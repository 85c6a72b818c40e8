/// The DNS record types relayfetch asks for or follows (RFC 1035, RFC 3596, RFC 9460).
public struct DNSRecordType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let a = DNSRecordType(rawValue: 1)
    public static let cname = DNSRecordType(rawValue: 5)
    public static let aaaa = DNSRecordType(rawValue: 28)
    public static let opt = DNSRecordType(rawValue: 41)
    public static let svcb = DNSRecordType(rawValue: 64)
    public static let https = DNSRecordType(rawValue: 65)

    public var description: String {
        switch self {
        case .a: return "A"
        case .cname: return "CNAME"
        case .aaaa: return "AAAA"
        case .opt: return "OPT"
        case .svcb: return "SVCB"
        case .https: return "HTTPS"
        default: return "TYPE\(rawValue)"
        }
    }
}

/// What one answer record says, decoded for the types relayfetch uses.
public enum DNSRecordData: Hashable, Sendable {
    /// An IPv4 (4 bytes) or IPv6 (16 bytes) address, network order.
    case address([UInt8])
    case cname(String)
    case serviceBinding(ServiceBinding)
    /// Any other type, its RDATA as sent.
    case other([UInt8])
}

/// One resource record of an answer section.
public struct DNSRecord: Hashable, Sendable {
    public var name: String
    public var type: DNSRecordType
    /// Seconds the record may be cached.
    public var ttl: UInt32
    public var data: DNSRecordData
    public init(name: String, type: DNSRecordType, ttl: UInt32, data: DNSRecordData) {
        self.name = name
        self.type = type
        self.ttl = ttl
        self.data = data
    }
}

/// An SVCB or HTTPS record (RFC 9460): where and how a service is reached.
public struct ServiceBinding: Hashable, Sendable {
    /// 0 is alias mode (only `target` counts); otherwise lower is preferred.
    public var priority: UInt16
    /// "." (the owner name itself) or another name.
    public var target: String
    /// The `alpn` parameter: protocols the service speaks, e.g. ["h3", "h2"].
    public var alpn: [String]
    /// True when the `no-default-alpn` parameter is present.
    public var noDefaultALPN: Bool
    public var port: UInt16?
    /// ipv4hint and ipv6hint addresses, network order.
    public var addressHints: [[UInt8]]
    public init(priority: UInt16, target: String, alpn: [String] = [], noDefaultALPN: Bool = false, port: UInt16? = nil,
                addressHints: [[UInt8]] = []) {
        self.priority = priority
        self.target = target
        self.alpn = alpn
        self.noDefaultALPN = noDefaultALPN
        self.port = port
        self.addressHints = addressHints
    }
}
