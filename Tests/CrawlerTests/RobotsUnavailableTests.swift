import Foundation
import XCTest
import RelayFetchTestSupport
@testable import Crawler

/// robots.txt that cannot be read now (RFC 9309 2.3.1.3-4): 429, 5xx or a connection closed
/// without an answer means "disallow everything for now, try again later", never "allow
/// everything", and is not kept for the whole crawl. Every claim is read from the origin's log:
/// the generated site's robots.txt disallows /private/, so a crawl that took a failure for "no
/// robots.txt" fetches /private/secret.html.
final class RobotsUnavailableTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    /// The times robots.txt was asked for.
    private func robotsRequests(_ site: CrawlSite) throws -> [Double] {
        try site.requests().filter { $0.path == "/robots.txt" }.map(\.time)
    }

    /// 503 once, then the file: nothing is fetched before the file could be read, then the site
    /// is crawled by its rules (its pages, /private/ left out), robots.txt read twice.
    func testA503IsRetriedThenTheFileIsObeyed() async throws {
        let site = try CrawlSite(pages: 5, serverArguments: ["--robots-status", "503", "--robots-failures", "1"])
        let (records, _) = try await CrawlTestHarness.crawl([site.origin + "/"])
        let requests = try site.requests()
        XCTAssertEqual(requests.first?.path, "/robots.txt")
        XCTAssertEqual(requests.dropFirst().first?.path, "/robots.txt", "no page before robots.txt could be read")
        XCTAssertEqual(try robotsRequests(site).count, 2)
        XCTAssertEqual(Set(try site.pageFetchCounts().keys), Set(try site.expectedPaths()))
        XCTAssertFalse(requests.contains { $0.path.hasPrefix("/private/") }, "robots.txt disallows /private/")
        XCTAssertEqual(records.first { $0.url == site.origin + "/" }?.outcome, .fetched)
    }

    /// 429 with Retry-After: 1 is not "no robots.txt": /private/ is never fetched, and the file
    /// is asked for again no sooner than a second later.
    func testA429IsNotAllowAllAndItsRetryAfterIsHonoured() async throws {
        let site = try CrawlSite(pages: 5, serverArguments: ["--robots-status", "429", "--robots-failures", "1", "--robots-retry-after", "1"])
        _ = try await CrawlTestHarness.crawl([site.origin + "/"])
        let requests = try site.requests()
        XCTAssertFalse(requests.contains { $0.path.hasPrefix("/private/") }, "a 429 is not an allow-all")
        let times = try robotsRequests(site)
        XCTAssertEqual(times.count, 2)
        if times.count == 2 { XCTAssertGreaterThanOrEqual(times[1] - times[0], 0.95, "Retry-After: 1") }
        XCTAssertEqual(Set(try site.pageFetchCounts().keys), Set(try site.expectedPaths()))
    }

    /// An answer to robots.txt that is not HTTP (a failure past the relay, not the relay's) is
    /// not kept for the crawl: the file is fetched again and obeyed. The transport now and then
    /// blames such an answer on the tunnel (a relay failure, retried anyway, which proves
    /// nothing here): runs where the chain counted a relay failure are set aside until one took
    /// it for the origin's.
    func testAFailurePastTheRelayIsNotKeptForTheCrawl() async throws {
        for _ in 0..<8 {
            let site = try CrawlSite(pages: 5, serverArguments: ["--robots-garbage", "--robots-failures", "1"])
            let (records, progress) = try await CrawlTestHarness.crawl([site.origin + "/"])
            guard progress.chains.allSatisfy({ $0.relayFailures == 0 }) else { continue }
            XCTAssertEqual(try site.server.events().filter { $0.hasPrefix("GARBAGE") }.count, 1, "the first answer was garbage")
            XCTAssertEqual(try robotsRequests(site).count, 2)
            XCTAssertEqual(Set(try site.pageFetchCounts().keys), Set(try site.expectedPaths()))
            XCTAssertFalse(try site.requests().contains { $0.path.hasPrefix("/private/") })
            XCTAssertEqual(records.filter { $0.outcome == .robots }.map(\.url), [site.origin + "/private/secret.html"])
            return
        }
        XCTFail("in 8 runs the transport blamed the origin's garbage on the relay every time")
    }

    /// A connection closed without an answer is a failure of the tunnel, the chain's: the URL is
    /// retried as after any relay failure, and robots.txt is fetched again and obeyed.
    func testAConnectionClosedWithoutAnAnswerIsRetried() async throws {
        let site = try CrawlSite(pages: 5, serverArguments: ["--robots-drop", "--robots-failures", "1"])
        _ = try await CrawlTestHarness.crawl([site.origin + "/"])
        XCTAssertEqual(try site.server.events().filter { $0.hasPrefix("DROPPED") }.count, 1, "the first answer was dropped")
        XCTAssertEqual(try robotsRequests(site).count, 2)
        XCTAssertEqual(Set(try site.pageFetchCounts().keys), Set(try site.expectedPaths()))
    }

    /// A robots.txt that keeps failing: asked for once per retry (3 times with 2 retries), no
    /// page ever fetched; the seed ends blocked, its record saying why.
    func testA503ThatLastsBlocksTheSiteAfterTheRetries() async throws {
        let site = try CrawlSite(pages: 3, serverArguments: ["--robots-status", "503"])
        let (records, _) = try await CrawlTestHarness.crawl([site.origin + "/"])
        XCTAssertEqual(try site.requests().map(\.path), ["/robots.txt", "/robots.txt", "/robots.txt"])
        XCTAssertEqual(records.map(\.outcome), [.robots])
        let error = records.first?.error ?? ""
        XCTAssertTrue(error.contains("robots.txt answered 503, 3 times in a row"), error)
    }
}
