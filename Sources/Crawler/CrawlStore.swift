import Foundation

/// Where a URL of the frontier stands.
public enum CrawlURLState: Int, Sendable, CaseIterable {
    case queued = 0, claimed = 1, fetched = 2, failed = 3, blockedByRobots = 4, skippedByType = 5

    /// The states of URLs that count as pages toward the limits (a request went out, or is
    /// going), as an SQL list both stores use.
    static let countedAsPagesSQL = "(1, 2, 3, 5)"
}

/// One URL taken from the frontier. `claim` tells one claim of the URL from the next: a store
/// shared by workers accepts an outcome only from the claim that still holds the URL.
public struct CrawlStoreEntry: Sendable, Equatable {
    let id: Int
    let url: String
    let host: String
    let depth: Int
    let attempts: Int
    var claim = 0
}

/// A URL found for the frontier: canonical, with its host and link depth.
typealias FrontierURL = (url: String, host: String, depth: Int)

/// The crawl's frontier, seen set and results, as the coordinator uses them. Two kinds:
/// `SQLiteCrawlStore`, embedded (one process; in memory or in a file), and
/// `PostgresCrawlStore`, shared by workers on many machines (claims are leases that expire, and
/// per-host politeness holds across workers). Implementations throw `CrawlError.store`.
public protocol CrawlStore: AnyObject, Sendable {
    typealias Entry = CrawlStoreEntry
    typealias State = CrawlURLState

    /// Records the options that decide what this crawl fetches, or, when the store already has
    /// some, checks they are the same: a difference throws a `CrawlError` naming each option,
    /// unless `replacing`, which records the new ones.
    func adopt(_ options: CrawlOptions, replacing: Bool) throws

    /// Makes claims a dead process left behind claimable again; returns how many.
    @discardableResult
    func recoverClaims() throws -> Int

    /// Adds URLs not seen before; returns how many were new.
    @discardableResult
    func enqueue(_ urls: [(url: String, host: String, depth: Int)]) throws -> Int

    /// The oldest queued URL due by `now` whose host is not in `busyHosts`, marked claimed. A
    /// shared store also holds politeness across workers: at most `perHost` claims of one host
    /// at a time, starts `delay` seconds apart (or the host's crawl delay, if longer).
    func claim(now: Double, busyHosts: Set<String>, perHost: Int, delay: Double) throws -> Entry?

    /// Records a final outcome and queues the links found, in one transaction, and runs
    /// `output` (the page's write to the crawl's outputs) in it, last: an output that throws
    /// rolls the completion back. Returns how many links were new, or nil when this claim no
    /// longer holds the URL (a shared store: its lease ran out and another worker took the URL
    /// over): then nothing is recorded and `output` is not run, so no page is written twice.
    @discardableResult
    func complete(_ entry: Entry, state: State, status: Int?, bytes: Int, digest: String?, error: String?,
                  links: [(url: String, host: String, depth: Int)], now: Double, output: () throws -> Void) throws -> Int?

    /// Puts a claimed URL back in the queue, due at `notBefore`, one attempt more.
    func retry(_ entry: Entry, notBefore: Double, error: String) throws

    /// Puts a claimed URL back in the queue, due at `notBefore`, without counting an attempt: it
    /// was not tried (every relay chain that could carry it is resting).
    func requeue(_ entry: Entry, notBefore: Double, error: String) throws

    /// How many URLs are in each state.
    func counts() throws -> [State: Int]

    /// Bytes of every page fetched so far (by every run and worker).
    func fetchedBytes() throws -> Int

    /// Pages claimed, fetched or failed (by every run and worker): what counts toward a limit.
    func pagesClaimedOrDone() throws -> Int

    /// When the next URL is due (a queued one, or a claim that may expire), if any.
    func earliestDue() throws -> Double?

    /// The URLs in `state`, in the order they were first seen.
    func urls(in state: State) throws -> [String]

    /// Whether other processes share this store (their pages count toward the limits, and
    /// their claims toward politeness).
    var isShared: Bool { get }

    /// Seconds between lease renewals while URLs are claimed, or nil when claims never expire.
    var leaseRenewalInterval: Double? { get }

    /// Extends the leases of every URL this process holds.
    func renewLeases() throws

    /// Politeness events other workers must see: a request to `host` is being sent now; the
    /// host's robots.txt asked for `crawlDelay` seconds; the host asked to be left alone until
    /// `pausedUntil` (429 or 503 with Retry-After).
    func hostSending(_ host: String, delay: Double) throws
    func hostCrawlDelay(_ host: String, seconds: Double) throws
    func hostPause(_ host: String, until: Double) throws
}

extension CrawlStore {
    /// Records a final outcome with nothing to write: see `complete(_:state:...:output:)`.
    @discardableResult
    public func complete(_ entry: Entry, state: State, status: Int?, bytes: Int, digest: String?, error: String?,
                         links: [(url: String, host: String, depth: Int)], now: Double) throws -> Int? {
        try complete(entry, state: state, status: status, bytes: bytes, digest: digest, error: error, links: links, now: now, output: {})
    }
}

/// An embedded store is the only one using it: politeness and claims stay in the process.
extension CrawlStore {
    public var isShared: Bool { false }
    public var leaseRenewalInterval: Double? { nil }
    public func renewLeases() throws {}
    public func hostSending(_ host: String, delay: Double) throws {}
    public func hostCrawlDelay(_ host: String, seconds: Double) throws {}
    public func hostPause(_ host: String, until: Double) throws {}
}
