/// How much a `CookieJar` keeps (RFC 6265bis §5.7): past a limit the jar evicts, expired cookies
/// first, then insecure cookies of the crowded domain (or site), then its others, then any, the
/// least recently used first. A hostile site can so never make the Cookie header grow unbounded,
/// nor push other sites' cookies out by spreading its own over many subdomains.
public struct CookieLimits: Sendable, Equatable {
    /// Cookies kept per domain (the RFC's minimum: 50).
    public var perDomain: Int
    /// Cookies kept per site (registrable domain, all its subdomains together), as browsers do.
    public var perSite: Int
    /// Cookies kept in the whole jar (the RFC's minimum: 3000).
    public var total: Int

    public init(perDomain: Int = 50, perSite: Int = 180, total: Int = 3000) {
        self.perDomain = perDomain
        self.perSite = perSite
        self.total = total
    }

    /// The RFC 6265bis limits (50 per domain, 3000 in all) and Chromium's 180 per site.
    public static let rfc6265bis = CookieLimits()

    /// The longest name plus value stored, in octets; longer cookies are ignored.
    static let maximumNameValueOctets = 4096
    /// The longest attribute value honoured, in octets; a longer attribute is ignored.
    static let maximumAttributeValueOctets = 1024
    /// The furthest in the future a cookie may expire: 400 days.
    static let maximumAge: Double = 400 * 24 * 3600
}
