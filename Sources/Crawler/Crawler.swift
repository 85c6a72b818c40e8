import Foundation
import RelayFetch
internal import COpenSSL
import CryptoPrimitives

/// A batch crawler over one relayed `Session`: seeds in, pages out. Workers take URLs from the
/// store's frontier as politeness allows, honour robots.txt and the robots nofollow rules of
/// each page (meta and X-Robots-Tag), retry what is worth retrying, and hand each final page to
/// `onPage` inside its completion's transaction (with its links), just before the commit, so a
/// crawl killed at any moment, or stopped by an output that fails, loses no page, and a worker
/// whose claim another took over writes nothing. Never fetches anything but through the
/// session, and never lets the session follow a redirect: a redirect is a link, held to the scope.
public final class Crawler: Sendable {
    public let configuration: CrawlConfiguration
    private let pool: RelayPool<Session>
    private let coordinator: CrawlCoordinator
    private let robots: RobotsCache
    private let pageSessions: PageSessions

    /// A crawler writing its frontier and results to `store` (refused with a `CrawlError` when
    /// the store holds a crawl started with other options), fetching through one session per
    /// relay chain: each host sticks to one chain, and a chain whose relay fails is taken out
    /// until its backoff ends (`chainBackoff` seconds, doubling). Whatever the sessions'
    /// `maximumRedirects`, the crawler follows no redirect through them: each is a link, checked
    /// for scope. Sessions that may connect directly (`allowsDirectConnections`) are refused: a crawl goes
    /// to hosts nobody listed in advance, and must never reach one but through relays.
    public init(configuration: CrawlConfiguration, sessions: [Session], store: any CrawlStore, chainBackoff: Double = 1) throws {
        precondition(!sessions.isEmpty, "a crawl needs at least one session")
        guard sessions.allSatisfy({ !$0.configuration.allowsDirectConnections }) else {
            throw CrawlError.relays("a crawl's sessions must never connect directly (Session.Configuration.allowsDirectConnections = false)")
        }
        self.configuration = configuration
        let hosts = max(1, configuration.maximumHostsRemembered)
        pool = RelayPool(sessions: sessions, baseBackoff: chainBackoff, maximumHosts: hosts)
        coordinator = try CrawlCoordinator(store: store, configuration: configuration)
        robots = RobotsCache(productToken: configuration.productToken, retry: configuration.retry, maximumOrigins: hosts)
        pageSessions = PageSessions(scope: configuration.sessionScope, maximumHosts: hosts)
    }

    /// A crawler fetching through one session (one relay chain).
    public convenience init(configuration: CrawlConfiguration, session: Session, store: any CrawlStore) throws {
        try self.init(configuration: configuration, sessions: [session], store: store)
    }

    /// Crawls from `seeds` (added to the frontier unless seen before) until the frontier is
    /// empty or a limit is reached; URLs an earlier, killed run had claimed are fetched again.
    /// `onPage` is called once per page whose outcome the store records, one call at a time
    /// (in the store's transaction), from any task; when it throws (an output failed), the
    /// crawl stops and `run` rethrows that error: the page is not committed, and a resumed
    /// crawl on the same store hands it over again.
    public func run(seeds: [URL], onPage: @escaping @Sendable (CrawledPage) throws -> Void) async throws -> CrawlProgress {
        var scope = configuration.scope
        var entries: [(url: String, host: String, depth: Int)] = []
        for seed in seeds {
            guard let canonical = configuration.canonicalizer.canonical(seed), let host = canonical.host?.lowercased() else {
                throw CrawlError.seeds("\"\(seed.absoluteString)\" is not an http(s) URL with a host")
            }
            scope.addSeed(canonical)
            entries.append((canonical.absoluteString, host, 0))
        }
        try await coordinator.start(seeds: entries, options: CrawlOptions(configuration: configuration, scope: scope),
                                    replacingOptions: configuration.replacesStoredOptions)
        let worker = PageWorker(configuration: configuration, scope: scope, pool: pool, coordinator: coordinator, robots: robots,
                                sessions: pageSessions, onPage: onPage)
        let renewal = renewingLeases()
        defer { renewal?.cancel() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<max(1, configuration.concurrency) { group.addTask { try await worker.run() } }
            // Not waitForAll(), which waits for every worker even after one failed: a worker
            // that failed (its output did) keeps its claim, and workers waiting for that host
            // would wait forever. The first error leaves this closure, which cancels the rest.
            while try await group.next() != nil {}
        }
        return try await progress()
    }

    /// Keeps this worker's claims in a shared store alive while pages are fetched. A failed
    /// renewal is tried again at the next tick; if the store stays away, completions fail too.
    private func renewingLeases() -> Task<Void, Never>? {
        guard let interval = coordinator.leaseRenewalInterval else { return nil }
        let coordinator = coordinator
        return Task {
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: UInt64(interval * 1e9))
                try? await coordinator.renewLeases()
            }
        }
    }

    /// Where the crawl stands now.
    public func progress() async throws -> CrawlProgress {
        var progress = try await coordinator.snapshot()
        (progress.relayChainsUp, progress.relayChains) = pool.upCount()
        progress.chains = pool.chainHealth()
        return progress
    }

    /// How many hosts (origins, for robots.txt) each kind of per-host state holds now: what
    /// `CrawlConfiguration.maximumHostsRemembered` bounds.
    func rememberedHostCounts() async -> [String: Int] {
        let (coverage, assignments) = pool.hostCounts()
        return ["session stores": pageSessions.hostCount, "robots.txt": await robots.originCount,
                "politeness": await coordinator.politenessHostCount, "chain coverage": coverage, "chain assignment": assignments]
    }

    /// "sha256:" and the hex digest of `data`.
    static func digest(_ data: Data) -> String {
        "sha256:" + Digest.hex(Digest.of(data, .sha256))
    }
}
