import Foundation
import HeadlessPage
import RelayFetch

/// One loop of the crawl, run by several tasks at once: claim a URL, take the relay chain that
/// carries its host, check robots.txt, fetch it, retry or record, queue its in-scope links.
struct PageWorker: Sendable {
    let configuration: CrawlConfiguration
    let scope: CrawlScope
    let pool: RelayPool<Session>
    let coordinator: CrawlCoordinator
    let robots: RobotsCache
    let sessions: PageSessions
    let onPage: @Sendable (CrawledPage) throws -> Void

    func run() async throws {
        while true {
            try Task.checkCancellation()
            switch try await coordinator.next() {
            case .finished: return
            case .wait(let seconds): try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
            case .job(let entry): try await process(entry)
            }
        }
    }

    private func process(_ entry: CrawlStore.Entry) async throws {
        guard let url = URL(string: entry.url) else {
            try await finish(entry, page: CrawledPage(record: record(entry, .failed, error: "unparsable URL")), links: [])
            return
        }
        let chain: Int, chainSession: Session
        switch pool.choice(for: entry.host) {
        case .chain(let index, let chosen): (chain, chainSession) = (index, chosen)
        case .allDown:
            try await waitForRelays(entry)
            return
        case .uncovered:
            // A session would fetch a host outside its relays' domains directly; a crawl never does.
            let error = "no relay chain covers \(entry.host) (their domains leave it out); never fetched directly"
            try await finish(entry, page: CrawledPage(record: record(entry, .failed, error: error)), links: [])
            return
        }
        if configuration.obeyRobots {
            let answer: RobotsCache.Answer
            do {
                // In the page scope, robots.txt has a store of its own too (it is not a page).
                answer = try await robots.rules(for: url) { [sessions, host = entry.host] in sessions.session(for: host, on: chainSession) }
            } catch {
                pool.report(chain: chain, relayFailure: "\(error)")
                try await retryOrWait(entry, error: "robots.txt: \(error)", mayWait: !Self.targetUnreachable(error))
                return
            }
            switch answer {
            case .unavailable(let reason, let until, let failures):
                try await waitForRobots(entry, reason: reason, until: until, failures: failures)
                return
            case .rules(let rules, let isNew):
                if isNew, configuration.followsSitemaps { try await enqueueSitemaps(rules.sitemaps, base: url, depth: entry.depth) }
                // Capped like Retry-After: a host asking for days between requests would hold the crawl open for as long.
                if let delay = rules.crawlDelay { await coordinator.setCrawlDelay(min(delay, configuration.retry.maximumDelay), for: entry.host) }
                guard rules.allows(url) else {
                    try await finish(entry, page: CrawledPage(record: record(entry, .robots)), links: [])
                    return
                }
            }
        }
        let session = sessions.session(for: entry.host, on: chainSession)
        // no-store keeps pages out of the session's in-memory HTTP cache: a crawl fetches each
        // URL once, and a cache holding every page would grow with the crawl.
        var request = HTTPRequest(url: url, headerFields: [("Accept", "text/html,application/xhtml+xml,*/*;q=0.8"),
                                                           ("Cache-Control", "no-store")])
        // A redirect is a link, checked for scope like any other: the session never follows it,
        // whatever its configuration says.
        request.followsRedirects = false
        if !configuration.acceptedTypes.isEmpty {
            request.acceptedMediaTypes = configuration.acceptedTypes + (configuration.followsSitemaps ? LinkExtractor.sitemapTypes : [])
        }
        let body: Data, response: HTTPResponse
        await coordinator.sending(to: entry.host)
        do {
            (body, response) = try await session.data(for: request)
        } catch {
            pool.report(chain: chain, relayFailure: (error as? FetchError)?.relayError.map { "\($0)" })
            try await retryOrWait(entry, error: "\(error)", mayWait: !Self.targetUnreachable(error))
            return
        }
        pool.report(chain: chain, relayFailure: nil)
        if RetryPolicy.isRetryable(status: response.statusCode), entry.attempts < configuration.retry.maximumRetries {
            let retryAfter = response.value(forHeaderField: "Retry-After").flatMap { RetryPolicy.retryAfterSeconds($0) }
            let wait = configuration.retry.delay(retry: entry.attempts + 1, retryAfter: retryAfter, jitter: Double.random(in: 0..<1))
            try await coordinator.retry(entry, after: wait, pauseHost: retryAfter != nil, error: "status \(response.statusCode)")
            return
        }
        let found = response.bodySkipped ? PageLinks() : links(in: body, response: response, depth: entry.depth)
        var result = record(entry, response.bodySkipped ? .skippedByType : .fetched)
        result.nofollow = found.nofollow
        result.linksCut = found.cut > 0 ? found.cut : nil
        result.status = response.statusCode
        result.contentType = response.value(forHeaderField: "Content-Type")
        result.relayChain = response.relayHops
        result.timings = response.timings
        result.bytes = body.count
        result.contentDigest = response.bodySkipped ? nil : Crawler.digest(body)
        result.links = found.all
        var exchange = HTTPExchange(request: request, response: response, mimeType: response.contentType.mediaType,
                                    body: configuration.keepBodies ? .data(body) : .none, bodySize: body.count,
                                    startedAt: result.fetchedAt, duration: 0)
        // The archive shows the fields as sent: the session adds its User-Agent before the request's own.
        exchange.request.headerFields = [("User-Agent", session.configuration.userAgent)] + request.headerFields
        var page = CrawledPage(record: result, exchange: exchange)
        if configuration.loadsRequisites, !response.bodySkipped, (200..<300).contains(response.statusCode), LinkExtractor.isHTML(result.contentType) {
            page.requisites = await requisites(of: body, response: response, session: session)
            page.record.requisites = page.requisites.map {
                CrawlRequisite(url: $0.request.url.absoluteString, status: $0.response.statusCode, contentType: $0.response.mimeType,
                               bytes: $0.bodySize, error: $0.error)
            }
        }
        try await finish(entry, page: page, links: found.queued)
    }

    /// The page's requisites, loaded through `session` (its chain, its scope's store) a few at a
    /// time; none when the body is not HTML after all.
    private func requisites(of body: Data, response: HTTPResponse, session: Session) async -> [HTTPExchange] {
        // Complete mode: an archive keeps what any viewport or medium needs (scripts, every
        // srcset candidate, print sheets), as `--requisites` promises.
        var options = PageLoader.Options.complete
        options.keepBodies = configuration.keepBodies
        options.maximumConcurrentRequests = 6
        options.maximumConcurrentRequestsPerOrigin = configuration.perHostConcurrency
        return (try? await PageLoader(session: session, options: options).requisites(of: body, response: response).resources.map(\.exchange)) ?? []
    }

    /// Queues the in-scope sitemaps a host's robots.txt names, one step deeper than the page
    /// that made us read it.
    private func enqueueSitemaps(_ sitemaps: [String], base: URL, depth: Int) async throws {
        let entries = sitemaps.compactMap { text -> (url: String, host: String, depth: Int)? in
            guard let canonical = configuration.canonicalizer.canonical(text, relativeTo: base.absoluteString),
                  scope.includes(canonical.url, host: canonical.host, depth: depth + 1) else { return nil }
            return (canonical.url, canonical.host, depth + 1)
        }
        if !entries.isEmpty { _ = try await coordinator.enqueue(entries) }
    }

    /// After a failed fetch: when it left every chain for the host resting (a relay failed and
    /// no other chain can take over), the URL waits for a chain like one that found them all
    /// down, unless not `mayWait`; otherwise it is tried again after a backoff or, out of
    /// retries, recorded as failed.
    private func retryOrWait(_ entry: CrawlStore.Entry, error: String, mayWait: Bool) async throws {
        if mayWait, pool.allDown(for: entry.host) {
            try await waitForRelays(entry)
        } else if entry.attempts < configuration.retry.maximumRetries {
            let wait = configuration.retry.delay(retry: entry.attempts + 1, retryAfter: nil, jitter: Double.random(in: 0..<1))
            try await coordinator.retry(entry, after: wait, pauseHost: false, error: error)
        } else {
            try await finish(entry, page: CrawledPage(record: record(entry, .failed, error: error)), links: [])
        }
    }

    /// The host's robots.txt could not be read (429, 5xx, a network failure): nothing may be
    /// fetched from it for now (RFC 9309 2.3.1.3-4). The URL waits, no attempt counted, until
    /// the file may be fetched again; once it failed more times in a row than the URL may be
    /// retried, the URL is recorded as blocked by robots.txt, saying why.
    private func waitForRobots(_ entry: CrawlStore.Entry, reason: String, until: Double, failures: Int) async throws {
        if failures <= configuration.retry.maximumRetries {
            try await coordinator.waitForRobots(entry, until: until, error: "robots.txt \(reason)")
        } else {
            let times = failures == 1 ? "once" : "\(failures) times in a row"
            let error = "robots.txt \(reason), \(times): nothing may be fetched from \(entry.host) until it can be read"
            try await finish(entry, page: CrawledPage(record: record(entry, .robots, error: error)), links: [])
        }
    }

    /// Every chain that covers the URL's host rests: the URL goes back, no attempt counted, due
    /// when the first chain's rest ends, unless it has already waited the relay wait; then it
    /// is recorded as failed, with each chain and its last failure.
    private func waitForRelays(_ entry: CrawlStore.Entry) async throws {
        let waited = await coordinator.relayWaitSoFar(entry)
        let reason = pool.downReason(for: entry.host)
        let left = configuration.relayWait - waited
        guard left > 0 else {
            let error = "no relay chain came back within \(Self.seconds(configuration.relayWait)) s (the relay wait): \(reason)"
            await coordinator.gaveUpWaitingForRelays(error: error)
            try await finish(entry, page: CrawledPage(record: record(entry, .failed, error: error)), links: [])
            return
        }
        // Never sooner than 10 ms (no spinning on a chain about to recover), never past the end
        // of the wait (the URL then fails on time).
        let recovery = pool.secondsUntilRecovery()
        try await coordinator.waitForRelays(entry, after: min(left, max(0.01, recovery)), error: reason)
    }

    /// Whether the last relay answered that it could not reach the page's host (502, 503 or 504
    /// to CONNECT): the relays work, the host does not, so each such try counts as an attempt
    /// and the URL does not wait for relays (a dead host would otherwise wait the whole relay
    /// wait). A relay that cannot reach the next relay is the chain's failure.
    static func targetUnreachable(_ error: any Error) -> Bool {
        guard let status = (error as? FetchError)?.relayError?.cause.refusalStatus else { return false }
        return (502...504).contains(status)
    }

    /// 2 rather than 2.0; 1.5 stays 1.5.
    private static func seconds(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e9 ? String(Int(value)) : String(value)
    }

    /// Hands the page to the outputs inside its completion's transaction, just before the
    /// commit: a kill in between fetches it again on resume rather than losing it; an output
    /// that fails ends the crawl here, the page not committed, so a resumed crawl writes it; a
    /// claim another worker took over (its lease ran out) writes nothing.
    private func finish(_ entry: CrawlStore.Entry, page: CrawledPage, links: [(url: String, host: String, depth: Int)]) async throws {
        _ = try await coordinator.complete(entry, record: page.record, links: links) { [onPage] in try onPage(page) }
    }

    /// What a page gives the crawl: every link (canonical, at most the page's cap), those in
    /// scope for the frontier, the robots rule that withheld them all, and how many distinct
    /// links the cap left out.
    struct PageLinks {
        var all: [String] = []
        var queued: [(url: String, host: String, depth: Int)] = []
        var nofollow: String?
        var cut = 0
    }

    /// The page's links. A redirect's Location is a link too. A robots nofollow (the
    /// X-Robots-Tag header, or a robots meta of an HTML page) keeps every link from being read.
    /// At most `maximumLinksPerPage` distinct links are taken from a page, at most
    /// `LinkExtractor.maximumSitemapLocations` from a sitemap.
    private func links(in body: Data, response: HTTPResponse, depth: Int) -> PageLinks {
        let directives = RobotsDirectives(productToken: configuration.productToken)
        if configuration.obeyRobots,
           let rule = directives.nofollow(headerValues: response.headerFields.filter { $0.name.lowercased() == "x-robots-tag" }.map(\.value), metas: []) {
            return PageLinks(nofollow: rule)
        }
        var raw: [String] = []
        var cap = configuration.maximumLinksPerPage
        var base = response.url.absoluteString
        if (300..<400).contains(response.statusCode), let location = response.value(forHeaderField: "Location") {
            raw = [location]
        } else if (200..<300).contains(response.statusCode) {
            let type = response.value(forHeaderField: "Content-Type")
            if configuration.followsSitemaps, LinkExtractor.mayBeSitemap(type, url: response.url),
               let locations = LinkExtractor.sitemapLocations(in: body, url: response.url) {
                raw = locations
                cap = LinkExtractor.maximumSitemapLocations
            } else if LinkExtractor.isHTML(type) {
                let page = LinkExtractor.links(in: body, url: response.url, contentType: type,
                                               metaNames: configuration.obeyRobots ? directives.metaNames : [])
                if let rule = directives.nofollow(headerValues: [], metas: page.metas) { return PageLinks(nofollow: rule) }
                (base, raw) = (page.base ?? base, page.references)
            }
        }
        var seen = Set<String>()
        var result = PageLinks()
        for link in raw {
            guard let canonical = configuration.canonicalizer.canonical(link, relativeTo: base), seen.insert(canonical.url).inserted else { continue }
            guard result.all.count < cap else {
                result.cut += 1
                continue
            }
            result.all.append(canonical.url)
            if scope.includes(canonical.url, host: canonical.host, depth: depth + 1) {
                result.queued.append((canonical.url, canonical.host, depth + 1))
            }
        }
        return result
    }

    private func record(_ entry: CrawlStore.Entry, _ outcome: CrawlRecord.Outcome, error: String? = nil) -> CrawlRecord {
        CrawlRecord(url: entry.url, depth: entry.depth, outcome: outcome, attempts: entry.attempts + 1, error: error, fetchedAt: Date())
    }
}
