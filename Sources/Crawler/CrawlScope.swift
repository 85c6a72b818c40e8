import Foundation
import RelayFetch

/// Which URLs a crawl follows: hosts (the seeds' hosts, or their registrable domains as the
/// public suffix list defines them), URL regexes to allow and deny, and a maximum link depth.
/// An IP literal is a scope of its own, matched exactly under either rule: the public suffix
/// list knows nothing of addresses (libpsl makes "0.1" of 10.0.0.1 and of 192.168.0.1 alike).
public struct CrawlScope: Sendable {
    /// How far from the seeds' hosts a crawl may go.
    public enum HostRule: Sendable {
        /// Only the exact hosts of the seeds.
        case sameHost
        /// Any host under a seed's registrable domain ("www.example.co.uk" -> "example.co.uk");
        /// a seed that is an IP literal still covers only itself.
        case sameDomain
    }

    public var hostRule: HostRule
    /// Links deeper than this (seeds are depth 0) are not followed; nil for no limit.
    public var maximumDepth: Int?
    // NSRegularExpression is immutable and documented as safe to share between threads.
    let allowed: [NSRegularExpression]
    let denied: [NSRegularExpression]
    private(set) var seedHosts: Set<String> = []
    private(set) var seedDomains: Set<String> = []

    /// Throws a `CrawlError` naming the first regex that does not compile.
    public init(hostRule: HostRule = .sameHost, allow: [String] = [], deny: [String] = [], maximumDepth: Int? = nil) throws {
        self.hostRule = hostRule
        self.maximumDepth = maximumDepth
        func compile(_ pattern: String) throws -> NSRegularExpression {
            do { return try NSRegularExpression(pattern: pattern) } catch {
                throw CrawlError.scope("\"\(pattern)\" is not a valid regular expression")
            }
        }
        allowed = try allow.map(compile)
        denied = try deny.map(compile)
    }

    /// Takes a seed's host (and registrable domain) into the scope.
    public mutating func addSeed(_ url: URL) {
        guard let host = url.host?.lowercased() else { return }
        seedHosts.insert(host)
        seedDomains.insert(Self.domain(of: host))
    }

    /// Whether a link to `url` found at `depth` is followed. `url` should be canonical.
    public func includes(_ url: URL, depth: Int) -> Bool {
        guard let host = url.host?.lowercased() else { return false }
        return includes(url.absoluteString, host: host, depth: depth)
    }

    /// The same for a canonical URL as text, with its host (lower case).
    func includes(_ text: String, host: String, depth: Int) -> Bool {
        if let maximumDepth, depth > maximumDepth { return false }
        switch hostRule {
        case .sameHost:
            guard seedHosts.contains(host) else { return false }
        case .sameDomain:
            guard seedDomains.contains(Self.domain(of: host)) else { return false }
        }
        if allowed.isEmpty && denied.isEmpty { return true }
        let range = NSRange(text.startIndex..., in: text)
        if !allowed.isEmpty && !allowed.contains(where: { $0.firstMatch(in: text, range: range) != nil }) { return false }
        return !denied.contains { $0.firstMatch(in: text, range: range) != nil }
    }

    /// What `.sameDomain` compares: the registrable domain of a name (the name itself when it is
    /// a public suffix), an IP literal as it is.
    static func domain(of host: String) -> String {
        isIPLiteral(host) ? host : PublicSuffixList.registrableDomain(host) ?? host
    }

    /// Whether `host` (lower case, no brackets) is an address rather than a name: IPv6 (it has a
    /// colon), or a last label that is a number (decimal, or hex after "0x"), which URL parsers
    /// and resolvers read as IPv4 however short ("127.1", "0x7f.1", "2130706433"). No top-level
    /// domain is a number, so no name is taken for one.
    static func isIPLiteral(_ host: String) -> Bool {
        if host.contains(":") { return true }
        var last = host.split(separator: ".", omittingEmptySubsequences: false).last ?? ""
        if last.isEmpty { return false }
        if last.hasPrefix("0x") {
            last = last.dropFirst(2)
            return last.allSatisfy(\.isHexDigit)
        }
        return last.allSatisfy { $0.isASCII && $0.isNumber }
    }
}
