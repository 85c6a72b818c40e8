import Foundation

/// The one owner of the store and the politeness state in this process: workers ask it for the
/// next URL, and report back what became of it. Limits (pages, bytes) are checked here, counting
/// earlier runs (and, with a shared store, other workers). A shared store also hears of every
/// politeness event, so that it holds across workers.
actor CrawlCoordinator {
    /// The answer to a worker asking for work.
    enum Claim: Sendable {
        case job(CrawlStore.Entry)
        /// Nothing may start now; ask again after this many seconds.
        case wait(Double)
        /// The frontier is empty (or a limit was reached) and nothing is in flight.
        case finished
    }

    private let store: any CrawlStore
    private var politeness: Politeness
    private let maximumPages: Int?
    private let maximumBytes: Int?
    private var inFlight = 0
    private var pagesDone: Int
    private var bytesDone: Int
    /// When `bytesDone` was last read from a shared store (other workers add to it).
    private var bytesReadAt = Date()
    private(set) var progress = CrawlProgress()
    /// Links already handed to the store, so that the same link on page after page costs no
    /// statement (they are seen there for good).
    private var recentLinks = RecentURLs(capacity: 8192)
    private let startedAt = Date()
    /// When each URL put back to wait for a relay chain (by store id) first did so, until it is
    /// done or tried: the relay wait runs from there. Kept in the process: a rerun (or another
    /// worker claiming the URL) starts its clock again.
    private var waitingForRelaysSince: [Int: Double] = [:]

    init(store: any CrawlStore, configuration: CrawlConfiguration) throws {
        self.store = store
        politeness = Politeness(policy: .init(perHostConcurrency: max(1, configuration.perHostConcurrency), delay: configuration.delay,
                                              requestsPerSecond: configuration.requestsPerSecond),
                                maximumHosts: configuration.maximumHostsRemembered)
        maximumPages = configuration.maximumPages
        maximumBytes = configuration.maximumBytes
        (pagesDone, bytesDone) = try Self.totals(of: store)
    }

    private static func totals(of store: any CrawlStore) throws -> (pages: Int, bytes: Int) {
        let counts = try store.counts()
        return ((counts[.fetched] ?? 0) + (counts[.failed] ?? 0) + (counts[.skippedByType] ?? 0), try store.fetchedBytes())
    }

    /// Checks (or records) the crawl's options, makes claims a dead process left claimable
    /// again, then adds the seeds not seen before.
    func start(seeds: [(url: String, host: String, depth: Int)], options: CrawlOptions, replacingOptions: Bool) throws {
        try store.adopt(options, replacing: replacingOptions)
        try store.recoverClaims()
        try store.enqueue(seeds)
    }

    /// Seconds between lease renewals, when the store's claims expire.
    nonisolated var leaseRenewalInterval: Double? { store.leaseRenewalInterval }

    /// Extends the leases of the URLs in flight here, if any.
    func renewLeases() throws {
        if inFlight > 0 { try store.renewLeases() }
    }

    /// Adds URLs not seen before; returns how many were new.
    func enqueue(_ urls: [(url: String, host: String, depth: Int)]) throws -> Int { try store.enqueue(urls) }

    /// The next URL to fetch, or how long to wait, or that the crawl is over.
    func next() throws -> Claim {
        let now = Self.now
        var pagesTaken = pagesDone + inFlight
        if store.isShared {
            // Other workers' pages count: every claim and outcome in the store, read before each
            // claim (an index-only count), so workers pass --max-pages by at most a claim each.
            if maximumPages != nil { pagesTaken = try store.pagesClaimedOrDone() }
            if maximumBytes != nil, Date().timeIntervalSince(bytesReadAt) > 0.5 {
                bytesDone = try store.fetchedBytes()
                bytesReadAt = Date()
            }
        }
        let limitReached = maximumPages.map { pagesTaken >= $0 } == true || maximumBytes.map { bytesDone >= $0 } == true
        if limitReached { return inFlight == 0 ? .finished : .wait(0.05) }
        let global = politeness.globalWait(at: now)
        if global > 0 { return .wait(global) }
        if let entry = try store.claim(now: now, busyHosts: politeness.busyHosts(at: now), perHost: politeness.policy.perHostConcurrency,
                                       delay: politeness.policy.delay) {
            politeness.start(entry.host, at: now)
            inFlight += 1
            return .job(entry)
        }
        guard let due = try store.earliestDue() else { return inFlight == 0 ? .finished : .wait(0.02) }
        let wake = [due, politeness.nextHostRelease(after: now)].compactMap { $0 }.filter { $0 > now }.min()
        return .wait(min(0.1, max(0.005, (wake ?? now + 0.02) - now)))
    }

    /// A claimed URL reached its final outcome; its links (already scoped and canonical) are
    /// queued in the same transaction, which runs `output` last (see `CrawlStore.complete`).
    /// Returns how many links were new, or nil when another worker had taken the URL over: its
    /// outcome was not recorded, nor written.
    func complete(_ entry: CrawlStore.Entry, record: CrawlRecord, links: [(url: String, host: String, depth: Int)],
                  output: @Sendable () throws -> Void) throws -> Int? {
        let state: CrawlStore.State = switch record.outcome {
        case .fetched: .fetched
        case .failed: .failed
        case .robots: .blockedByRobots
        case .skippedByType: .skippedByType
        }
        // What the page's requisites brought counts toward the byte limit as the page's own.
        let bytes = record.bytes + (record.requisites ?? []).reduce(0) { $0 + $1.bytes }
        let unseen = links.filter { !recentLinks.contains($0.url) }
        let added = try store.complete(entry, state: state, status: record.status, bytes: bytes, digest: record.contentDigest,
                                       error: record.error, links: unseen, now: Self.now, output: output)
        waitingForRelaysSince[entry.id] = nil
        release(entry)
        guard let added else {
            progress.lostClaims += 1
            return nil
        }
        for link in unseen { recentLinks.insert(link.url) }
        switch record.outcome {
        case .fetched, .failed, .skippedByType:
            pagesDone += 1
            bytesDone += bytes
            progress.pagesThisRun += 1
            progress.bytesThisRun += bytes
            if let cut = record.linksCut {
                progress.pagesWithLinksCut += 1
                progress.linksCut += cut
            }
        case .robots: break
        }
        return added
    }

    /// A claimed URL goes back to the queue until `after` seconds from now; with `pauseHost`, its
    /// host gets no request before then either (429 or 503 with Retry-After).
    func retry(_ entry: CrawlStore.Entry, after seconds: Double, pauseHost: Bool, error: String) throws {
        let now = Self.now
        try store.retry(entry, notBefore: now + seconds, error: error)
        if pauseHost {
            politeness.pause(entry.host, until: now + seconds)
            try store.hostPause(entry.host, until: now + seconds)
        }
        progress.retries += 1
        waitingForRelaysSince[entry.id] = nil
        release(entry)
    }

    /// Seconds the URL has waited for a relay chain so far (0 the first time it must).
    func relayWaitSoFar(_ entry: CrawlStore.Entry) -> Double {
        Self.now - (waitingForRelaysSince[entry.id] ?? Self.now)
    }

    /// A URL is being recorded as failed after waiting the relay wait, with `error`.
    func gaveUpWaitingForRelays(error: String) {
        progress.failedWaitingForRelays += 1
        progress.relayWaitError = error
    }

    /// A claimed URL goes back to the queue until `after` seconds from now, without counting an
    /// attempt: every relay chain that could carry it is resting.
    func waitForRelays(_ entry: CrawlStore.Entry, after seconds: Double, error: String) throws {
        let now = Self.now
        try store.requeue(entry, notBefore: now + seconds, error: error)
        if waitingForRelaysSince[entry.id] == nil { waitingForRelaysSince[entry.id] = now }
        release(entry)
    }

    /// A claimed URL goes back to the queue until `until` (seconds since 1970), without counting
    /// an attempt, and its host gets no request before then: the host's robots.txt could not be
    /// read, so nothing may be fetched from it for now.
    func waitForRobots(_ entry: CrawlStore.Entry, until: Double, error: String) throws {
        try store.requeue(entry, notBefore: until, error: error)
        politeness.pause(entry.host, until: until)
        try store.hostPause(entry.host, until: until)
        release(entry)
    }

    /// A claimed URL of `host` is being sent now; its host's delay counts from here.
    /// Other workers learn it through the store when it delays their next start (with no delay,
    /// the claim said all there is); if the store fails here, the page's completion (which must
    /// reach it) reports the failure.
    func sending(to host: String) {
        politeness.sending(host, at: Self.now)
        if politeness.startInterval(for: host) > 0 { try? store.hostSending(host, delay: politeness.policy.delay) }
    }

    /// robots.txt asked for `seconds` between requests to `host`.
    func setCrawlDelay(_ seconds: Double, for host: String) {
        politeness.setCrawlDelay(seconds, for: host, now: Self.now)
        try? store.hostCrawlDelay(host, seconds: seconds)
    }

    /// Hosts whose politeness state is kept now.
    var politenessHostCount: Int { politeness.hostCount }

    /// Counts from the store, with this run's figures.
    func snapshot() throws -> CrawlProgress {
        let counts = try store.counts()
        var result = progress
        result.fetched = counts[.fetched] ?? 0
        result.failed = counts[.failed] ?? 0
        result.blockedByRobots = counts[.blockedByRobots] ?? 0
        result.skippedByType = counts[.skippedByType] ?? 0
        result.queued = counts[.queued] ?? 0
        result.inFlight = inFlight
        result.waitingForRelays = waitingForRelaysSince.count
        result.seconds = Date().timeIntervalSince(startedAt)
        return result
    }

    private func release(_ entry: CrawlStore.Entry) {
        inFlight -= 1
        politeness.finish(entry.host)
    }

    static var now: Double { Date().timeIntervalSince1970 }
}
