/// Which hop of a relay chain a layer belongs to; errors carry it so users know where it failed.
/// The one hop type from the transport up to the public API: RelayFetch re-exports it, and
/// `FetchError.Hop` names it (no twin mapped by hand).
public struct HopDescription: Sendable, Hashable, CustomStringConvertible {
    /// 1-based position in the chain, nearest the client first; 0 for the origin itself.
    public let index: Int
    /// "host:port" of the relay (or origin).
    public let endpoint: String
    /// How it was spoken to, e.g. "HTTPS, HTTP/2 CONNECT".
    public let protocolName: String

    package init(index: Int, endpoint: String, protocolName: String) {
        self.index = index
        self.endpoint = endpoint
        self.protocolName = protocolName
    }

    /// "hop 1 (relay.example:443, HTTPS, HTTP/2 CONNECT)", or "origin host:port".
    public var description: String {
        index == 0 ? "origin \(endpoint)" : "hop \(index) (\(endpoint), \(protocolName))"
    }
}
