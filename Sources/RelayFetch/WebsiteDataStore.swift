/// Where a session keeps browsing state, shaped like `WKWebsiteDataStore`. relayfetch only has
/// the non-persistent kind: cookies and cached responses live in memory, belong to this store
/// (shared by every page of the sessions that use it) and are gone when it is released.
public final class WebsiteDataStore: Sendable {
    /// A fresh in-memory store; nothing it holds is ever written to disk.
    public static func nonPersistent() -> WebsiteDataStore { WebsiteDataStore() }

    /// Always false: there is no persistent store.
    public var isPersistent: Bool { false }

    /// The store's cookies (RFC 6265bis), used by every transport.
    public let cookieJar = CookieJar()
    let httpCache = HTTPCache()

    private init() {}
}
