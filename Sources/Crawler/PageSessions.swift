import Foundation
import RelayFetch
import Locking

/// How far one set of cookies and cached responses reaches in a crawl.
public enum CrawlSessionScope: String, Sendable, CaseIterable {
    /// A fresh ephemeral store for every page (and for each host's robots.txt): nothing a
    /// page's responses set is ever sent with another page.
    case page
    /// One store per host, kept for the crawl: a host's cookies come back to it, never to
    /// another host.
    case host
    /// The relay chain's one store for every page (cookies still go to their own hosts only,
    /// by RFC 6265).
    case crawl
}

/// The session each exchange of a page is made with, as the crawl's session scope says: a
/// session that shares its relay chain's tunnels and connections (no new relay connection per
/// page) with a data store of the scope's own. Stores of the host scope live as long as the
/// crawl, up to `maximumHosts` of them: past it, the store of the host used least recently goes
/// (its cookies with it), and that host starts with a new one if met again.
final class PageSessions: Sendable {
    let scope: CrawlSessionScope
    private let hostStores: Locked<RecentlyUsedMap<String, WebsiteDataStore>>

    init(scope: CrawlSessionScope, maximumHosts: Int = CrawlConfiguration.defaultMaximumHostsRemembered) {
        self.scope = scope
        hostStores = Locked(RecentlyUsedMap(capacity: maximumHosts))
    }

    /// Host stores kept now.
    var hostCount: Int { hostStores.withLock { $0.count } }

    /// The session for a page of `host` (or its robots.txt) carried by `chain`.
    func session(for host: String, on chain: Session) -> Session {
        switch scope {
        case .crawl: return chain
        case .page: return chain.sharingConnections(dataStore: .nonPersistent())
        case .host: return chain.sharingConnections(dataStore: store(for: host))
        }
    }

    private func store(for host: String) -> WebsiteDataStore {
        hostStores.withLock { hostStores in
            if let store = hostStores.value(for: host) { return store }
            let store = WebsiteDataStore.nonPersistent()
            hostStores.set(store, for: host)
            return store
        }
    }
}
