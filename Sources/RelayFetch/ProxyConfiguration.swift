import Foundation

/// A relay configuration, shaped like Apple's `ProxyConfiguration`: a chain of relay hops and
/// the domains it covers. Traffic it covers never goes direct, even when every relay is down.
public struct ProxyConfiguration: Sendable, Hashable {
    /// The chain, nearest the client first.
    public var relayHops: [RelayHop]
    /// Apple's flag for falling back to a direct connection when the relays fail. relayfetch
    /// keeps the flag for source compatibility but always fails closed; it defaults to false.
    public var allowFailover: Bool = false
    /// Domains this configuration covers (the domain and its subdomains); empty means all.
    public var matchDomains: [String] = []
    /// Domains it never covers; excluded wins over matched.
    public var excludedDomains: [String] = []
    /// Host names covered exactly (no subdomains), as managed profiles' `MatchFQDNs` say.
    /// When both match lists are empty, every host is covered.
    public var matchFQDNs: [String] = []
    /// Host names never covered (exact), as profiles' `Excluded FQDNs` say; wins over matched.
    public var excludedFQDNs: [String] = []

    /// Oblivious HTTP parameters, when this configuration is an OHTTP one.
    public private(set) var obliviousHTTP: ObliviousHTTPRelay?

    /// A configuration that sends all traffic through `relayHops`.
    public init(relayHops: [RelayHop]) {
        self.relayHops = relayHops
    }

    /// An Oblivious HTTP configuration (RFC 9458), as Apple has it: requests to `matchDomains`
    /// become Binary HTTP, are encrypted to the gateway's key and POSTed (`message/ohttp-req`)
    /// to `relayResourcePath` on the relay, which sees who but not what; the gateway sees what
    /// but not who. `relayHops` (empty here) may be set to reach the relay through a chain.
    public init(obliviousHTTPRelay relay: RelayHop, relayResourcePath: String, gatewayKeyConfig: Data, matchDomains: [String]) {
        relayHops = []
        self.matchDomains = matchDomains
        obliviousHTTP = ObliviousHTTPRelay(relay: relay, relayResourcePath: relayResourcePath, gatewayKeyConfig: gatewayKeyConfig)
    }

    /// True when `host` is routed through this configuration's relays.
    public func covers(host: String) -> Bool {
        DomainMatcher.covers(host: host, match: matchDomains, exclude: excludedDomains,
                             matchExactly: matchFQDNs, excludeExactly: excludedFQDNs)
    }
}

/// Where an Oblivious HTTP configuration sends its encapsulated requests, and to whom.
public struct ObliviousHTTPRelay: Sendable, Hashable {
    public var relay: ProxyConfiguration.RelayHop
    /// The path on the relay's endpoint that takes `message/ohttp-req` POSTs, e.g. "/relay".
    public var relayResourcePath: String
    /// The gateway's key configuration: one, or an `application/ohttp-keys` list.
    public var gatewayKeyConfig: Data
}

/// Suffix matching of host names on label boundaries, as Apple's relay domains are matched.
enum DomainMatcher {
    static func covers(host: String, match: [String], exclude: [String],
                       matchExactly: [String] = [], excludeExactly: [String] = []) -> Bool {
        let name = normalize(host)
        if exclude.contains(where: { isWithin(name, domain: normalize($0)) }) { return false }
        if excludeExactly.contains(where: { normalize($0) == name }) { return false }
        if match.isEmpty && matchExactly.isEmpty { return true }
        return match.contains(where: { isWithin(name, domain: normalize($0)) })
            || matchExactly.contains(where: { normalize($0) == name })
    }

    /// `name` equals `domain` or ends with "." + `domain`.
    static func isWithin(_ name: String, domain: String) -> Bool {
        guard !domain.isEmpty else { return false }
        return name == domain || name.hasSuffix("." + domain)
    }

    private static func normalize(_ name: String) -> String {
        var lowered = name.lowercased()
        while lowered.hasSuffix(".") { lowered.removeLast() }
        while lowered.hasPrefix(".") { lowered.removeFirst() }
        return lowered
    }
}
