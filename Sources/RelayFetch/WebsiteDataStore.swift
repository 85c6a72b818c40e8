/// Where a session keeps browsing state, shaped like `WKWebsiteDataStore`. relayfetch only has
/// the non-persistent kind: state lives in memory, belongs to one store, and goes with it.
public final class WebsiteDataStore: Sendable {
    /// A fresh in-memory store; nothing it holds is ever written to disk.
    public static func nonPersistent() -> WebsiteDataStore { WebsiteDataStore() }

    /// Always false: there is no persistent store.
    public var isPersistent: Bool { false }

    private init() {}
}
