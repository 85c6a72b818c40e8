/// Carries one DNS query to an encrypted resolver and brings back its response: DNS over HTTPS
/// (RFC 8484), over TLS (RFC 7858) or Oblivious DoH (RFC 9230). Implementations live with the
/// code that owns the connections (RelayFetch).
public protocol DNSTransport: Sendable {
    /// How the resolver reads in errors, e.g. "DNS-over-HTTPS resolver https://dns.example/dns-query".
    var resolverDescription: String { get }
    /// Sends `query` (a whole DNS message) and returns the response message's bytes.
    func exchange(_ query: [UInt8]) async throws -> [UInt8]
}
