import Foundation
import XCTest
import RelayFetchTestSupport
@testable import Crawler

/// Crawls of a generated site through the real relays; every claim is checked on the origin's
/// own log, not on the crawler's counters.
final class CrawlEndToEndTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    /// The whole site, each page exactly once despite its many spellings, robots.txt fetched
    /// once through the relay and obeyed, pages no link reaches found through the sitemap index
    /// and its gzip sitemap, no relay token at the origin.
    func testWholeSiteOnceThroughRelayA() async throws {
        let site = try CrawlSite(pages: 200)
        let (records, progress) = try await CrawlTestHarness.crawl([site.origin + "/"]) { $0.perHostConcurrency = 4 }
        let requests = try site.requests()
        let counts = try site.pageFetchCounts()
        XCTAssertEqual(Set(counts.keys), Set(try site.expectedPaths()))
        XCTAssertEqual(counts.values.filter { $0 != 1 }, [], "a page was fetched twice")
        XCTAssertEqual(requests.filter { $0.path == "/robots.txt" }.count, 1)
        XCTAssertFalse(requests.contains { $0.path.hasPrefix("/private/") }, "robots.txt disallows /private/")
        XCTAssertEqual(Set(requests.map(\.peer)), ["127.0.0.11"], "every request came from relay A")
        XCTAssertTrue(requests.allSatisfy { $0.headerLines.contains("Host: origin.test:\(site.server.port)") }, "headers are logged")
        XCTAssertFalse(requests.contains { $0.headerLines.contains { $0.lowercased().contains("proxy-authorization") || $0.contains("relay-token") } })
        XCTAssertEqual(progress.fetched, try site.expectedPaths().count)
        XCTAssertTrue(counts.keys.contains("/pages/orphan-0.html") && counts.keys.contains("/sitemap-pages.xml.gz"))
        XCTAssertEqual(progress.blockedByRobots, 1)
        XCTAssertEqual(records.filter { $0.outcome == .robots }.map(\.url), [site.origin + "/private/secret.html"])
        let index = try XCTUnwrap(records.first { $0.url == site.origin + "/" })
        XCTAssertEqual(index.relayChain, ["127.0.0.11:3129"])
        XCTAssertEqual(index.status, 200)
        XCTAssertTrue(index.links.contains("https://origin2.test/elsewhere.html"), "out-of-scope links are reported, not followed")
        // Digest and size as the origin computed them over what it sent.
        let sent = try XCTUnwrap(try site.responses().first { $0.target == "/" })
        XCTAssertEqual(index.contentDigest, "sha256:" + sent.sha256)
        XCTAssertEqual(index.bytes, sent.bytes)
        XCTAssertGreaterThan(sent.bytes, 0)
    }

    /// A two-hop chain (HTTP/2 relays A then B): the origin sees relay B only, and neither token.
    func testTwoHopChain() async throws {
        let site = try CrawlSite(pages: 20)
        let (records, _) = try await CrawlTestHarness.crawl([site.origin + "/"], hops: CrawlTestHarness.chainAB)
        let requests = try site.requests()
        XCTAssertEqual(Set(try site.pageFetchCounts().keys), Set(try site.expectedPaths()))
        XCTAssertEqual(Set(requests.map(\.peer)), ["127.0.0.12"])
        XCTAssertFalse(requests.contains { $0.headerLines.contains { $0.lowercased().contains("proxy-authorization") || $0.contains("relay-token") } })
        XCTAssertEqual(Set(records.filter { $0.outcome == .fetched }.map(\.relayChain)), [["127.0.0.11:4433", "127.0.0.12:4433"]])
        // Relay B saw the origin's name (this test's unique port), from relay A, with its own token only;
        // relay A never saw the origin's name.
        let authority = "origin.test:\(site.server.port)"
        let linesB = try TestServers.waitForLogLines(TestServers.http2RelayBLog, containing: authority, skipping: 0)
        XCTAssertFalse(linesB.isEmpty, "relay B logged the tunnels")
        XCTAssertEqual(Set(linesB.values(HTTP2RelayLogField.proxyAuthorization)), [TestServers.relayBToken])
        XCTAssertEqual(Set(linesB.values(HTTP2RelayLogField.remoteAddress)), ["127.0.0.11"])
        XCTAssertEqual(try TestServers.logLines(TestServers.http2RelayALog, containing: authority), [])
    }

    /// Relay down: nothing reaches the origin, not even robots.txt; the same origin answers
    /// through a live relay (so its log is being written).
    func testRelayDownFailsClosed() async throws {
        let site = try CrawlSite(pages: 5)
        let dead = [TestServers.relayHop(url: TestServers.deadRelayURL)]
        let (obeying, _) = try await CrawlTestHarness.crawl([site.origin + "/"], hops: dead) {
            $0.retry.maximumRetries = 1
            $0.relayWait = 1
        }
        XCTAssertEqual(obeying.map(\.outcome), [.failed], "a relay failure is not the origin's robots.txt: the page fails")
        XCTAssertTrue(obeying.first?.error?.contains("hop 1 (127.0.0.13:3129") == true, obeying.first?.error ?? "")
        let (ignoring, _) = try await CrawlTestHarness.crawl([site.origin + "/"], hops: dead) {
            $0.obeyRobots = false
            $0.retry.maximumRetries = 1
            $0.relayWait = 1
        }
        XCTAssertEqual(ignoring.map(\.outcome), [.failed])
        XCTAssertEqual(ignoring.first?.attempts, 1, "waiting for the relay spent no retry")
        XCTAssertTrue(ignoring.first?.error?.contains("hop 1 (127.0.0.13:3129") == true, ignoring.first?.error ?? "")
        XCTAssertEqual(try site.requests().count, 0, "nothing reached the origin")
        _ = try await CrawlTestHarness.crawl([site.origin + "/"]) { $0.maximumPages = 1 }
        XCTAssertGreaterThan(try site.requests().count, 0, "the origin's log is live")
    }

    /// 503 with Retry-After: 1 on the first request of each /flaky/ page: each is fetched again
    /// no sooner than a second later, and ends fetched.
    func testRetryAfterIsHonoured() async throws {
        let site = try CrawlSite(pages: 2)
        let (records, progress) = try await CrawlTestHarness.crawl([site.origin + "/flaky/index.html"]) { $0.followsSitemaps = false }
        XCTAssertEqual(records.count, 3)
        XCTAssertTrue(records.allSatisfy { $0.outcome == .fetched && $0.status == 200 && $0.attempts == 2 }, "\(records.map { ($0.url, $0.status, $0.attempts) })")
        // The retries the crawl counted are the 503s the origin sent, one per page.
        let refusals = try site.responses().filter { $0.status == 503 }.map(\.path)
        XCTAssertEqual(refusals.sorted(), ["/flaky/index.html", "/flaky/one.html", "/flaky/two.html"])
        XCTAssertEqual(progress.retries, refusals.count)
        let requests = try site.requests().filter { $0.path.hasPrefix("/flaky/") }
        for path in ["/flaky/index.html", "/flaky/one.html", "/flaky/two.html"] {
            let times = requests.filter { $0.path == path }.map(\.time)
            XCTAssertEqual(times.count, 2, path)
            if times.count == 2 { XCTAssertGreaterThanOrEqual(times[1] - times[0], 0.95, path) }
        }
    }

    /// Per-host concurrency holds at the origin (slow responses make requests overlap), and a
    /// robots.txt Crawl-delay spaces request starts.
    func testPerHostConcurrencyAndCrawlDelay() async throws {
        let slow = try CrawlSite(pages: 30, serverArguments: ["--delay-ms", "60"])
        _ = try await CrawlTestHarness.crawl([slow.origin + "/"]) { $0.concurrency = 8 }
        XCTAssertEqual(try slow.requests().map(\.inProgress).max(), 2, "two at a time, and they did overlap")

        let delayed = try CrawlSite(pages: 4, generatorArguments: ["--crawl-delay", "0.25"])
        _ = try await CrawlTestHarness.crawl([delayed.origin + "/"]) { $0.maximumPages = 4 }
        let starts = try delayed.requests().filter { $0.path != "/robots.txt" }.map(\.time)
        XCTAssertEqual(starts.count, 4)
        // Arrival times at the origin: relay jitter can bring two arrivals a little closer than
        // the sends were; without the delay they would be milliseconds apart.
        for (earlier, later) in zip(starts, starts.dropFirst()) { XCTAssertGreaterThanOrEqual(later - earlier, 0.2) }
    }

    /// robots.txt answering 4xx (but 429) allows everything, even /private/ (RobotsUnavailableTests
    /// has 429 and 5xx).
    func testRobots404AllowsEverything() async throws {
        let missing = try CrawlSite(pages: 3, serverArguments: ["--robots-status", "404"])
        _ = try await CrawlTestHarness.crawl([missing.origin + "/"])
        XCTAssertTrue(try missing.requests().contains { $0.path == "/private/secret.html" })
    }

    /// --max-pages and --max-depth, counted at the origin.
    func testPageAndDepthLimits() async throws {
        let site = try CrawlSite(pages: 50)
        _ = try await CrawlTestHarness.crawl([site.origin + "/"]) { $0.maximumPages = 10 }
        XCTAssertEqual(try site.pageFetchCounts().values.reduce(0, +), 10)

        let shallow = try CrawlSite(pages: 50)
        _ = try await CrawlTestHarness.crawl([shallow.origin + "/"]) { $0.scope.maximumDepth = 1 }
        XCTAssertEqual(Set(try shallow.pageFetchCounts().keys),
                       ["/", "/pages/page-0.html", "/pages/page-1.html", "/pages/page-2.html", "/files/data.txt", "/sitemap.xml"],
                       "the sitemap robots.txt names is one step from the seed; what it lists is two")
    }

    /// With only text/html accepted, a 32 MiB binary seed and the site's text/plain file are
    /// recorded as skipped by type: status and type known, no body, no digest. The origin's log
    /// shows the binary's response was cut off (the client stopped reading after its header);
    /// the sitemaps are still read, so every HTML page is found.
    func testResponsesOfOtherTypesAreSkippedWithoutReadingTheirBodies() async throws {
        let site = try CrawlSite(pages: 10)
        let big = site.root.appendingPathComponent("files/big.bin")
        try Data(count: 32 << 20).write(to: big)
        let (records, progress) = try await CrawlTestHarness.crawl([site.origin + "/", site.origin + "/files/big.bin"]) {
            $0.acceptedTypes = ["text/html"]
        }
        let skipped = records.filter { $0.outcome == .skippedByType }
        XCTAssertEqual(Set(skipped.map(\.url)), [site.origin + "/files/big.bin", site.origin + "/files/data.txt"])
        for record in skipped {
            XCTAssertEqual(record.status, 200)
            XCTAssertEqual(record.bytes, 0)
            XCTAssertNil(record.contentDigest)
        }
        XCTAssertEqual(skipped.first { $0.url.hasSuffix("big.bin") }?.contentType, "application/octet-stream")
        // The origin notices when the relay closes its side, which may come a moment later.
        let deadline = Date().addingTimeInterval(10)
        while try site.abortedTargets().isEmpty, Date() < deadline { try await Task.sleep(nanoseconds: 50_000_000) }
        XCTAssertEqual(try site.abortedTargets(), ["/files/big.bin"], "the client stopped reading")
        XCTAssertEqual(progress.skippedByType, 2)
        XCTAssertEqual(Set(try site.pageFetchCounts().keys), Set(try site.expectedPaths() + ["/files/big.bin"]), "sitemaps were still read")
        // The bytes counted are those of the bodies the origin sent whole and the crawl read:
        // neither skipped body, nor robots.txt.
        let read = try site.responses().filter { !["/robots.txt", "/files/big.bin", "/files/data.txt"].contains($0.path) }
        XCTAssertEqual(progress.bytesThisRun, read.map(\.bytes).reduce(0, +))
        for record in records where record.outcome == .fetched {
            let url = try XCTUnwrap(URLComponents(string: record.url))
            let target = url.percentEncodedPath + (url.percentEncodedQuery.map { "?" + $0 } ?? "")
            XCTAssertEqual(record.bytes, read.first { $0.target == target }?.bytes, target)
        }
        XCTAssertLessThan(progress.bytesThisRun, 1 << 20)
    }
}
