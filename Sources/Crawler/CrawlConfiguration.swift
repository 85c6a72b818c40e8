import Foundation

/// What a crawl follows and how politely: scope, canonicalization, limits, concurrency, delays,
/// retries and robots.txt. Defaults are polite: 2 requests at a time per host, robots honoured.
public struct CrawlConfiguration: Sendable {
    public var scope: CrawlScope
    public var canonicalizer = URLCanonicalizer()
    /// Stop starting pages once this many were fetched (or failed), earlier runs included.
    public var maximumPages: Int?
    /// Stop starting pages once this many body bytes were fetched, earlier runs included.
    public var maximumBytes: Int?
    /// Requests in flight across all hosts.
    public var concurrency = 8
    /// Requests in flight to one host.
    public var perHostConcurrency = 2
    /// Seconds between request starts to one host (a robots.txt `Crawl-delay` raises it, up to
    /// `retry.maximumDelay`).
    public var delay: Double = 0
    /// Request starts per second across all hosts; nil for no limit.
    public var requestsPerSecond: Double?
    public var retry = RetryPolicy()
    /// Seconds a URL may wait for a relay chain while every chain that covers its host rests
    /// after relay failures; such waits count no attempt. Past it, the URL is recorded as failed
    /// with the chains' last failures. Five minutes outlasts a relay restart or a brief network
    /// cut (the pool's chain backoff tops out at 30 s, so that is several health checks), yet a
    /// crawl whose relays are gone for good still ends.
    public var relayWait: Double = 300
    /// Obey robots.txt (fetched through the same relays as the pages).
    public var obeyRobots = true
    /// Follow the sitemaps robots.txt names: sitemap indexes, sitemaps and gzip sitemaps, whose
    /// URLs are links one step deeper (and in scope like any other).
    public var followsSitemaps = true
    /// The product token robots.txt groups are matched against.
    public var productToken = "relayfetch"
    /// How far cookies and cached responses reach: a fresh ephemeral store per page (the
    /// default), one per host, or one for the whole crawl. Relay connections are shared anyway.
    public var sessionScope = CrawlSessionScope.page
    /// When the store holds a crawl started with other options (`CrawlOptions`), record these
    /// instead of refusing to run.
    public var replacesStoredOptions = false
    /// Media types whose bodies are read ("text/html", "text/*"); empty for any. A 2xx response
    /// of another type is recorded as skipped by type, its body not read (the transfer stops
    /// after its header). While sitemaps are followed, sitemap types (XML, gzip) are read too.
    public var acceptedTypes: [String] = []
    /// Load each HTML page's requisites (style sheets and their imports, scripts, images,
    /// frames) as a browser would, through the same relay chain and session scope. They are not
    /// links: not queued, not subject to robots.txt or per-host politeness; their bytes count
    /// toward `maximumBytes`.
    public var loadsRequisites = false
    /// Keep page bodies for an archive (WARC); otherwise only their digest is kept.
    public var keepBodies = false
    /// Hosts whose state the crawl keeps in memory (each host's session store, robots.txt
    /// rules, politeness and relay chain): past it, the host used least recently is forgotten
    /// and starts afresh if met again (its robots.txt read again, its session store new). A
    /// site answering every host name with links to new ones thus keeps a crawl's memory flat.
    /// A host with a request in flight, or waiting out a delay or pause, is never forgotten.
    public var maximumHostsRemembered = CrawlConfiguration.defaultMaximumHostsRemembered
    public static let defaultMaximumHostsRemembered = 10_000
    /// Distinct links taken from one page (an HTML page or a redirect); the rest are not
    /// followed and the page's record says how many (`CrawlRecord.linksCut`). A sitemap is
    /// bounded by its protocol instead (`LinkExtractor.maximumSitemapLocations`).
    public var maximumLinksPerPage = 10_000

    public init(scope: CrawlScope) { self.scope = scope }
}
