import Foundation
import XCTest
import RelayFetchTestSupport
@testable import Crawler

/// A worker whose lease ran out while it fetched a page (as when it is cut off from the database
/// for a whole lease), after another worker took the URL over and completed it: the late worker's
/// completion writes no page to its outputs and leaves the other worker's result as it is. A
/// real crawl through relay A on the real PostgreSQL server; the origin's log proves the late
/// worker's request went out (so nothing written is not nothing fetched).
final class PostgresLostLeaseTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testACompletionFromALostLeaseWritesNothingAndKeepsTheOtherWorkersResult() async throws {
        let database = try PostgresTestDatabase()
        let site = try CrawlSite(pages: 3, serverArguments: ["--delay-ms", "2000"])
        let late = try PostgresCrawlStore(url: database.url, lease: 60)
        let seed = site.origin + "/"
        let crawl = Task { try await CrawlTestHarness.crawl([seed], store: late) { $0.obeyRobots = false } }
        let deadline = Date().addingTimeInterval(20)
        while try !site.requests().contains(where: { $0.path == "/" }) {
            XCTAssertLessThan(Date(), deadline, "the seed's request never reached the origin")
            if Date() > deadline { break }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        XCTAssertEqual(try database.query("SELECT claims FROM crawl_pages WHERE state = 1"), ["1"], "the late worker holds the seed")

        // Its lease runs out; the other worker recovers the URL, claims it and completes it
        // while the late worker's response is still on its way (the origin waits 2 s).
        _ = try database.query("UPDATE crawl_pages SET lease_until = 0 WHERE state = 1")
        // The host's politeness delay from the late worker's start is not what this is about:
        // on a fast machine the takeover came within it, and nothing could be claimed.
        _ = try database.query("UPDATE crawl_hosts SET next_start = 0, paused_until = 0")
        let other = try PostgresCrawlStore(url: database.url, lease: 60)
        let taken = try XCTUnwrap(try other.claim(now: Date().timeIntervalSince1970, busyHosts: [], perHost: 1, delay: 0))
        XCTAssertEqual(taken.claim, 2, "taken over")
        try other.complete(taken, state: .fetched, status: 203, bytes: 7, digest: "sha256:other", error: nil, links: [], now: 0)

        let (records, progress) = try await crawl.value
        XCTAssertEqual(records.map(\.url), [], "the late worker wrote no page")
        XCTAssertEqual(progress.lostClaims, 1)
        XCTAssertEqual(progress.fetched, 1, "the other worker's page")
        XCTAssertEqual(try database.query("SELECT state, status, bytes, digest, claims, completions FROM crawl_pages"),
                       ["2|203|7|sha256:other|2|1"], "the other worker's result stands")
        XCTAssertEqual(try site.pageFetchCounts(), ["/": 1], "the late worker's request did go out, once")
        XCTAssertEqual(try site.responses().map(\.path), ["/"], "and was answered")
    }
}
