import Foundation

/// What one robots.txt (RFC 9309) lets a crawler with a given product token do on one host: the
/// group for that token (or `*`), matched by longest pattern with `*` and `$`, an allow winning
/// a tie; plus the group's `Crawl-delay` and the file's `Sitemap` lines.
public struct RobotsRules: Sendable, Equatable {
    /// One allow or disallow line: its pattern, percent-encoding normalized.
    struct Rule: Sendable, Equatable {
        let allow: Bool
        let pattern: RobotsPattern
    }

    private enum Access: Sendable, Equatable {
        case allowAll, disallowAll
        case rules([Rule])
    }

    private let access: Access
    /// Seconds between requests the group asks for (`Crawl-delay`, not in RFC 9309 but common).
    public let crawlDelay: Double?
    /// Sitemap URLs named anywhere in the file.
    public let sitemaps: [String]

    private init(access: Access, crawlDelay: Double? = nil, sitemaps: [String] = []) {
        self.access = access
        self.crawlDelay = crawlDelay
        self.sitemaps = sitemaps
    }

    /// No robots.txt (4xx, RFC 9309 2.3.1.3): everything may be crawled.
    public static let allowAll = RobotsRules(access: .allowAll)
    /// robots.txt unreachable (5xx or a network failure, RFC 9309 2.3.1.4): nothing may be crawled.
    public static let disallowAll = RobotsRules(access: .disallowAll)

    /// The largest robots.txt parsed; the rest is ignored (RFC 9309 2.5 asks for at least 500 KiB).
    public static let sizeLimit = 500 * 1024

    /// Whether `pathAndQuery` (as sent in the request line, e.g. `/a/b?c=d`) may be fetched.
    public func allows(_ pathAndQuery: String) -> Bool {
        let path = pathAndQuery.isEmpty ? "/" : pathAndQuery
        if path == "/robots.txt" { return true }  // RFC 9309 2.2.2: always allowed
        switch access {
        case .allowAll: return true
        case .disallowAll: return false
        case .rules(let rules):
            let target = Array(Self.normalized(path).utf8)
            var best: Rule?
            for rule in rules where rule.pattern.matches(target) {
                guard let current = best else { best = rule; continue }
                let length = rule.pattern.bytes.count, currentLength = current.pattern.bytes.count
                if length > currentLength || (length == currentLength && rule.allow && !current.allow) {
                    best = rule
                }
            }
            return best?.allow ?? true
        }
    }

    /// Whether `url` may be fetched.
    public func allows(_ url: URL) -> Bool {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return false }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return allows(path + (components.percentEncodedQuery.map { "?" + $0 } ?? ""))
    }

    /// Parses a robots.txt body for the crawler named `productToken` (e.g. "relayfetch"): the
    /// groups naming it (case-insensitively) combined, else the `*` groups, else no rules.
    public static func parse(_ data: Data, productToken: String) -> RobotsRules {
        let text = String(decoding: data.prefix(sizeLimit), as: UTF8.self)
        let token = productToken.lowercased()
        var named = GroupRules(), star = GroupRules()
        var sitemaps: [String] = []
        // Whether the group being read names us or `*`, decided at its user-agent lines: asking
        // a list of its agents at every rule line took agents x rules steps (20 000 of each fit
        // in a robots.txt).
        var groupNamesUs = false, groupNamesStar = false
        var inAgentLines = false
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            switch key {
            case "user-agent":
                if !inAgentLines { (groupNamesUs, groupNamesStar) = (false, false) }
                inAgentLines = true
                let agent = agentToken(value)
                groupNamesUs = groupNamesUs || agent == token
                groupNamesStar = groupNamesStar || agent == "*"
            case "allow", "disallow", "crawl-delay":
                inAgentLines = false
                if groupNamesUs { named.add(key: key, value: value) }
                if groupNamesStar { star.add(key: key, value: value) }
            case "sitemap":
                sitemaps.append(value)
            default:
                continue
            }
        }
        // A group with a user-agent line and no rules still exists (it allows everything).
        let chosen = agentsMention(text, token) ? named : star
        return RobotsRules(access: .rules(chosen.rules), crawlDelay: chosen.crawlDelay, sitemaps: sitemaps)
    }

    /// Rules gathered for one user agent from every group that names it.
    private struct GroupRules {
        var rules: [Rule] = []
        var crawlDelay: Double?

        mutating func add(key: String, value: String) {
            if key == "crawl-delay" {
                if let seconds = Double(value), seconds >= 0, seconds.isFinite { crawlDelay = seconds }
                return
            }
            guard !value.isEmpty else { return }  // "Disallow:" with no path matches nothing
            rules.append(Rule(allow: key == "allow", pattern: RobotsPattern(Array(RobotsRules.normalized(value).utf8))))
        }
    }

    /// Whether any user-agent line names `token` (a group may have no rules at all).
    private static func agentsMention(_ text: String, _ token: String) -> Bool {
        text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).contains { line in
            let parts = line.split(separator: ":", maxSplits: 1)
            return parts.count == 2 && parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "user-agent"
                && agentToken(String(parts[1].split(separator: "#").first ?? "")) == token
        }
    }

    /// The product token of a user-agent line's value, lower-cased ("FooBot/1.2" -> "foobot").
    private static func agentToken(_ value: String) -> String {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("*") { return "*" }
        return String(trimmed.prefix { $0.isLetter || $0 == "_" || $0 == "-" }).lowercased()
    }

    /// Percent-encoding as RFC 9309 2.2.2 compares it: unreserved escapes decoded, others in
    /// upper case, non-ASCII bytes encoded; `*` and `$` stay as they are.
    static func normalized(_ text: String) -> String {
        URLCanonicalizer.normalizedEscapes(text, allowing: printableASCII)
    }

    private static let printableASCII = Set((UInt8(0x21)...UInt8(0x7E)).filter { $0 != UInt8(ascii: "%") })
}
