import Foundation

/// An encrypted DNS resolver, shaped like Apple's `NWParameters.PrivacyContext.ResolverConfiguration`:
/// DNS over HTTPS (RFC 8484), DNS over TLS (RFC 7858) or Oblivious DoH (RFC 9230).
/// `serverAddresses` are IP literals for the resolver itself, so its own name needs no plain DNS.
public struct ResolverConfiguration: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case https(URL)
        case tls(host: String, port: UInt16)
        case oblivious(relay: URL, target: URL, keys: Data?)
    }

    let kind: Kind
    /// Addresses to reach the resolver (or the oblivious relay) at, instead of resolving its name.
    public var serverAddresses: [String]
    /// DoH only: POST queries (RFC 8484 §4.1) instead of GET with the `dns` parameter.
    public var usesPOST = false

    /// DNS over HTTPS at `url` (e.g. https://dns.example/dns-query), over HTTP/2.
    public static func https(_ url: URL, serverAddresses: [String] = []) -> ResolverConfiguration {
        ResolverConfiguration(kind: .https(url), serverAddresses: serverAddresses)
    }

    /// DNS over TLS to `host` (port 853 unless given as "host:port"), verified as `host`.
    public static func tls(_ host: String, serverAddresses: [String] = []) -> ResolverConfiguration {
        var name = host, port: UInt16 = 853
        if let colon = host.lastIndex(of: ":"), !host.hasSuffix("]"), host.firstIndex(of: ":") == colon,
           let given = UInt16(host[host.index(after: colon)...]) {
            name = String(host[..<colon])
            port = given
        }
        return ResolverConfiguration(kind: .tls(host: name, port: port), serverAddresses: serverAddresses)
    }

    /// Oblivious DoH: queries sealed to `target` (its ODoH config: `keys`, or fetched from the
    /// target's /.well-known/odohconfigs through `relay`) and sent through the oblivious `relay`,
    /// which sees who asks but not what; the target sees what but not who.
    public static func oblivious(relay: URL, target: URL, keys: Data? = nil) -> ResolverConfiguration {
        ResolverConfiguration(kind: .oblivious(relay: relay, target: target, keys: keys), serverAddresses: [])
    }

    public var description: String {
        switch kind {
        case .https(let url): return "DNS-over-HTTPS resolver \(url.absoluteString)"
        case .tls(let host, let port): return "DNS-over-TLS resolver \(host):\(port)"
        case .oblivious(let relay, let target, _): return "Oblivious DoH resolver \(target.absoluteString) via \(relay.absoluteString)"
        }
    }

    /// The host name that must be reached to ask this resolver (the oblivious relay for ODoH).
    var serverHost: String? {
        switch kind {
        case .https(let url): return url.host
        case .tls(let host, _): return host
        case .oblivious(let relay, _, _): return relay.host
        }
    }
}
