import Foundation
import HeadlessPage
import RelayFetch

/// What became of one URL, as a JSON line: where it was, what came back, through which relays,
/// how long each phase took, the links it had and the SHA-256 of its body.
public struct CrawlRecord: Sendable, Codable {
    public enum Outcome: String, Sendable, Codable {
        /// A response arrived (any status, after retries).
        case fetched
        /// No response after every retry (relay or transport failure).
        case failed
        /// robots.txt does not allow it.
        case robots
        /// A response arrived whose Content-Type the crawl does not accept: its body was not read.
        case skippedByType = "type-skipped"
    }

    public var url: String
    public var depth: Int
    public var outcome: Outcome
    public var status: Int?
    public var contentType: String?
    /// Hops that carried the exchange, nearest the client first.
    public var relayChain: [String] = []
    public var timings: HTTPTimings?
    public var bytes = 0
    /// "sha256:" and the hex digest of the body.
    public var contentDigest: String?
    /// Every link found (canonical), in scope or not; none when a robots rule forbids following them.
    public var links: [String] = []
    /// The robots rule that kept the page's links from being read and followed, if one did:
    /// "X-Robots-Tag", "meta robots" or "meta relayfetch" (the product token) saying
    /// `nofollow` or `none`.
    public var nofollow: String?
    /// Distinct links beyond the page's cap (`CrawlConfiguration.maximumLinksPerPage`), not
    /// taken; nil when the cap cut none.
    public var linksCut: Int?
    /// The page's requisites, when the crawl loads them.
    public var requisites: [CrawlRequisite]?
    /// Tries for this URL, earlier runs included (1 when it worked the first time).
    public var attempts = 1
    public var error: String?
    public var fetchedAt: Date
}

/// One requisite of a page (a style sheet, script, image, frame...) as loaded with it.
public struct CrawlRequisite: Sendable, Codable {
    public var url: String
    public var status: Int?
    public var contentType: String?
    public var bytes = 0
    /// Why it did not load, if it did not.
    public var error: String?
}

/// A crawled page as handed to outputs: its record, and for archives the exchanges themselves.
public struct CrawledPage: Sendable {
    public var record: CrawlRecord
    /// The page's exchange, when a response came (its body kept when
    /// `CrawlConfiguration.keepBodies` is set); nil for a page that failed or robots.txt refused.
    public var exchange: HTTPExchange?
    /// The requisites' exchanges (bodies too when `keepBodies` is set), for archives.
    public var requisites: [HTTPExchange] = []

    public init(record: CrawlRecord, exchange: HTTPExchange? = nil, requisites: [HTTPExchange] = []) {
        self.record = record
        self.exchange = exchange
        self.requisites = requisites
    }
}

/// Where a crawl stands, for progress lines and the final summary.
public struct CrawlProgress: Sendable, Codable {
    public var fetched = 0
    public var failed = 0
    public var blockedByRobots = 0
    /// Responses whose bodies were skipped for their Content-Type.
    public var skippedByType = 0
    public var queued = 0
    public var inFlight = 0
    /// Fetched or failed in this run (the rest come from an earlier run's store).
    public var pagesThisRun = 0
    public var bytesThisRun = 0
    public var retries = 0
    /// Pages of this run with more distinct links than the per-page cap, and the links left out.
    public var pagesWithLinksCut = 0
    public var linksCut = 0
    /// URLs put back to wait for a relay chain (every chain for their host resting) and not
    /// done since: no attempt counted, failed once they waited longer than the relay wait.
    public var waitingForRelays = 0
    /// URLs of this run recorded as failed because no relay chain came back within the relay
    /// wait, and the last such error (it names each chain and its last failure).
    public var failedWaitingForRelays = 0
    public var relayWaitError: String?
    /// Pages of this run whose outcome was dropped, not recorded nor written, because another
    /// worker of a shared store had taken the URL over (this worker's lease ran out).
    public var lostClaims = 0
    /// Relay chains working now, of all the crawl uses.
    public var relayChainsUp = 0
    public var relayChains = 0
    /// Each relay chain's health.
    public var chains: [RelayChainHealth] = []
    public var seconds: Double = 0
}

/// One relay chain of the pool as the crawl saw it.
public struct RelayChainHealth: Sendable, Codable {
    /// 1 for the first chain given.
    public var chain: Int
    /// Its relays, nearest the client first ("host:port > host:port").
    public var relays: String
    /// False while it rests after a relay failure.
    public var up: Bool
    /// Relay failures it had (each rested it).
    public var relayFailures: Int
    /// Pages it carried to a response.
    public var pages: Int
    /// Hosts assigned to it now.
    public var hosts: Int
}
