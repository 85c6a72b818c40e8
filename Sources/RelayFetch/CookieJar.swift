import Foundation
import Locking

/// An in-memory cookie jar (RFC 6265bis): Domain, Path, Secure, HttpOnly, SameSite, Max-Age,
/// Expires, host-only cookies, the `__Host-` and `__Secure-` prefixes, and public suffixes
/// (libpsl) refused as cookie domains, and the RFC's size limits (`CookieLimits`).
/// Thread-safe; never written anywhere.
public final class CookieJar: Sendable {
    private let contents = Locked(Contents())
    private let now: @Sendable () -> Date
    /// When the jar evicts cookies.
    public let limits: CookieLimits

    /// What the lock guards: the cookies, and the site of each cookie domain seen.
    fileprivate struct Contents {
        var cookies: [Cookie] = []
        var sites: [String: String] = [:]
    }

    public init(limits: CookieLimits = .rfc6265bis, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.limits = limits
        now = clock
    }

    /// Every live cookie (for tests and inspection).
    public var allCookies: [Cookie] {
        let time = now()
        return contents.withLock { $0.cookies.filter { !$0.isExpired(at: time) } }
    }

    /// Stores the cookies of `Set-Cookie` header values received from `url`.
    public func store(setCookieValues values: [String], from url: URL) {
        for value in values { store(value, from: url) }
    }

    /// The `Cookie` header value for a request to `url`, or nil when no cookie applies.
    /// `siteForCookies` is the top-level page's URL; cross-site requests carry only SameSite=None.
    public func cookieHeader(for url: URL, siteForCookies: URL? = nil) -> String? {
        let time = now()
        let crossSite = siteForCookies.map { !Self.sameSite($0, url) } ?? false
        let sent: [Cookie] = contents.withLock { contents in
            var sent: [Cookie] = []
            for index in contents.cookies.indices where contents.cookies[index].matches(url, at: time) {
                if crossSite && contents.cookies[index].sameSite != .unrestricted { continue }
                contents.cookies[index].lastAccessed = time  // least recently used goes first when the jar is full
                sent.append(contents.cookies[index])
            }
            return sent
        }
        let matching = sent.sorted { $0.path.count != $1.path.count ? $0.path.count > $1.path.count : $0.created < $1.created }
        guard !matching.isEmpty else { return nil }
        // A nameless cookie (RFC 6265bis §5.6, no "=") is sent as its value alone.
        return matching.map { $0.name.isEmpty ? $0.value : "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// Parses one Set-Cookie value and stores, replaces or deletes accordingly (RFC 6265bis §5.6-5.7),
    /// then evicts if a limit is passed. Expiry is capped at 400 days.
    func store(_ header: String, from url: URL) {
        guard let host = url.host?.lowercased(), var parsed = SetCookieParser.parse(header) else { return }
        let secureOrigin = url.scheme?.lowercased() == "https"
        if parsed.secure && !secureOrigin { return }
        var domain = host
        var hostOnly = true
        if let attribute = parsed.domain, !attribute.isEmpty {
            if PublicSuffixList.isPublicSuffix(attribute) {
                guard attribute == host else { return }  // a public suffix only for itself, host-only
            } else {
                guard host == attribute || host.hasSuffix("." + attribute) else { return }
                domain = attribute
                hostOnly = false
            }
        }
        if parsed.name.hasPrefix("__Secure-") && !(parsed.secure && secureOrigin) { return }
        if parsed.name.hasPrefix("__Host-") && !(parsed.secure && secureOrigin && hostOnly && parsed.path == "/") { return }
        if parsed.sameSite == .unrestricted && !parsed.secure { parsed.sameSite = .lax }  // SameSite=None requires Secure
        let path = parsed.path ?? Self.defaultPath(url)
        let time = now()
        let latest = time.addingTimeInterval(CookieLimits.maximumAge)
        let expires: Date? = (parsed.maxAge.map { time.addingTimeInterval(TimeInterval(min($0, Int(CookieLimits.maximumAge)))) } ?? parsed.expires)
            .map { min($0, latest) }
        contents.withLock { contents in
            let existing = contents.cookies.firstIndex { $0.name == parsed.name && $0.domain == domain && $0.path == path }
            let created = existing.map { contents.cookies[$0].created } ?? time
            if let existing { contents.cookies.remove(at: existing) }
            let cookie = Cookie(name: parsed.name, value: parsed.value, domain: domain, hostOnly: hostOnly, path: path,
                                secure: parsed.secure, httpOnly: parsed.httpOnly, sameSite: parsed.sameSite ?? .lax,
                                expires: expires, created: created, lastAccessed: time)
            guard !cookie.isExpired(at: time) else { return }
            contents.cookies.append(cookie)
            contents.evictIfOverLimits(limits, crowdedDomain: domain, at: time)
        }
    }

    /// The directory of the request path (RFC 6265bis §5.1.4).
    static func defaultPath(_ url: URL) -> String {
        let path = url.path
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    static func sameSite(_ a: URL, _ b: URL) -> Bool {
        guard let hostA = a.host?.lowercased(), let hostB = b.host?.lowercased() else { return false }
        return (PublicSuffixList.registrableDomain(hostA) ?? hostA) == (PublicSuffixList.registrableDomain(hostB) ?? hostB)
    }
}

extension CookieJar.Contents {
    /// RFC 6265bis §5.7's eviction, with the lock held: expired cookies first; then, while the
    /// domain is over its limit, its insecure cookies and then its others; the same for its site;
    /// then, while the jar is over its total, any cookie. Within a step the least recently used
    /// goes first.
    fileprivate mutating func evictIfOverLimits(_ limits: CookieLimits, crowdedDomain domain: String, at time: Date) {
        let site = site(of: domain)
        let siteDomains = Set(cookies.map(\.domain)).filter { self.site(of: $0) == site }
        let inSite: (Cookie) -> Bool = { siteDomains.contains($0.domain) }
        guard cookies.count(where: { $0.domain == domain }) > limits.perDomain || cookies.count(where: inSite) > limits.perSite
                || cookies.count > limits.total else { return }
        cookies.removeAll { $0.isExpired(at: time) }
        evict(cookies.count { $0.domain == domain } - limits.perDomain) { $0.domain == domain }
        evict(cookies.count(where: inSite) - limits.perSite, where: inSite)
        evict(cookies.count - limits.total, insecureFirst: false) { _ in true }
    }

    /// Removes `excess` cookies that `matches` picks: insecure ones first, least recently used first.
    private mutating func evict(_ excess: Int, insecureFirst: Bool = true, where matches: (Cookie) -> Bool) {
        var excess = excess
        for insecureOnly in (insecureFirst ? [true, false] : [false]) where excess > 0 {
            let victims = cookies.indices.filter { matches(cookies[$0]) && (!insecureOnly || !cookies[$0].secure) }
                .sorted { cookies[$0].lastAccessed < cookies[$1].lastAccessed }.prefix(excess)
            excess -= victims.count
            for index in victims.sorted(by: >) { cookies.remove(at: index) }
        }
    }

    /// The registrable domain a cookie domain belongs to (itself when it has none), remembered
    /// so eviction does not ask libpsl once per cookie. Lock held.
    private mutating func site(of domain: String) -> String {
        if let known = sites[domain] { return known }
        let site = PublicSuffixList.registrableDomain(domain) ?? domain
        if sites.count > 10_000 { sites.removeAll() }
        sites[domain] = site
        return site
    }
}
