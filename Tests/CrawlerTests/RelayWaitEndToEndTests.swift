import Foundation
import XCTest
import RelayFetch
import RelayFetchTestSupport
@testable import Crawler

/// URLs wait, without using their retries, while every relay chain for their host is down, and
/// are fetched once a chain comes back; a chain that never does ends the crawl after the relay
/// wait with an error naming it. The relay is `late_relay.py` of our own on 127.0.0.100-.103,
/// refusing connections at first and then forwarding to relay A's plain port (squid, which
/// reaches the origin from 127.0.0.11). Checked on the origin's, the relay's and the store's own
/// records, with the SQLite and the PostgreSQL stores.
final class RelayWaitEndToEndTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    /// A relay on `address` that refuses connections for `downFor` seconds (forever when
    /// negative), then forwards them to relay A.
    private func lateRelay(_ address: String, downFor: Double) throws -> (server: HostileServer, hop: ProxyConfiguration.RelayHop) {
        let server = try HostileServer(script: "late_relay.py", host: address, arguments: ["--down-for", String(downFor)])
        return (server, TestServers.relayHop(url: URL(string: "http://\(address):\(server.port)")!))
    }

    /// Every page fetched exactly once, through the relay only, none failed, no attempt spent
    /// waiting (with one retry allowed, which the waits would otherwise use up).
    private func checkComeback(store: any CrawlStore, address: String) async throws {
        let site = try CrawlSite(pages: 12)
        let relay = try lateRelay(address, downFor: 3)
        let started = Date()
        let (records, progress) = try await CrawlTestHarness.crawl([site.origin + "/"], chains: [[relay.hop]], store: store, chainBackoff: 0.5) {
            $0.retry.maximumRetries = 1
            $0.relayWait = 60
        }
        XCTAssertGreaterThan(Date().timeIntervalSince(started), 2.5, "the relay was down for the first 3 s")
        XCTAssertEqual(records.filter { $0.outcome == .failed }.map { "\($0.url): \($0.error ?? "")" }, [])
        XCTAssertEqual(records.map(\.attempts).filter { $0 != 1 }, [], "waiting for the relay spent no attempt")
        let counts = try site.pageFetchCounts()
        XCTAssertEqual(Set(counts.keys), Set(try site.expectedPaths()))
        XCTAssertEqual(counts.values.filter { $0 != 1 }, [], "each page once")
        XCTAssertEqual(Set(try site.requests().map(\.peer)), ["127.0.0.11"], "only through the relay")
        let events = try relay.server.events()
        XCTAssertEqual(events.first, "LISTENING")
        XCTAssertGreaterThan(events.filter { $0.hasPrefix("FORWARDED") }.count, 0)
        XCTAssertEqual(progress.failed, 0)
        XCTAssertEqual(progress.fetched, try site.expectedPaths().count)
    }

    func testURLsWaitForADownRelayAndAreFetchedOnceWhenItComesBackSQLite() async throws {
        try await checkComeback(store: try SQLiteCrawlStore(path: nil), address: "127.0.0.100")
    }

    func testURLsWaitForADownRelayAndAreFetchedOnceWhenItComesBackPostgres() async throws {
        let database = try PostgresTestDatabase()
        try await checkComeback(store: try PostgresCrawlStore(url: database.url), address: "127.0.0.101")
        XCTAssertEqual(try database.query("SELECT DISTINCT attempts FROM crawl_pages"), ["1"], "no attempt counted while waiting")
        XCTAssertEqual(try database.query("SELECT count(*) FROM crawl_pages WHERE state IN (0, 1, 3)"), ["0"], "none queued, claimed or failed")
    }

    /// A host the relay cannot reach (squid answers CONNECT with 503) is not a relay outage: its
    /// URL spends its retries and fails at once rather than waiting the relay wait, while the
    /// site's pages are all fetched.
    func testAHostTheRelayCannotReachSpendsItsRetriesInsteadOfWaiting() async throws {
        let site = try CrawlSite(pages: 5)
        // A port of this test's own that nothing listens on any more: relay A's log tells its
        // tunnels from other tests' (a fixed port would be shared); lines an earlier user of the
        // same port left in the log are skipped.
        let gone = try HostileServer(script: "static_origin.py", arguments: ["--root", site.root.path])
        gone.stop()
        let deadAuthority = "origin.test:\(gone.port)"
        let earlier = try TestServers.logLines(TestServers.relayLog, containing: "CONNECT\t\(deadAuthority)\t").count
        let deadHost = "https://\(deadAuthority)/"
        let started = Date()
        let (records, _) = try await CrawlTestHarness.crawl([deadHost, site.origin + "/"], chains: [CrawlTestHarness.relayA], chainBackoff: 0.2) {
            $0.retry.maximumRetries = 1
            $0.relayWait = 60
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 20, "did not wait the relay wait")
        let dead = try XCTUnwrap(records.first { $0.url == deadHost })
        XCTAssertEqual(dead.outcome, .failed)
        XCTAssertEqual(dead.attempts, 2, "tried, then retried once")
        XCTAssertTrue(dead.error?.contains("relay refused the tunnel: 50") == true, dead.error ?? "")
        // The attempts the record counts are the relay's refusals (each of robots.txt), in its log.
        let refusals = try TestServers.waitForLogLines(TestServers.relayLog, containing: "CONNECT\t\(deadAuthority)\t", skipping: earlier, count: 2)
        XCTAssertEqual(refusals.count, 2, "two tunnels asked for")
        XCTAssertTrue(refusals.allSatisfy { $0.count > 4 && $0[4].hasPrefix("50") }, "\(refusals)")
        XCTAssertEqual(Set(try site.pageFetchCounts().keys), Set(try site.expectedPaths()))
    }

    /// The relay never comes back: after the relay wait the seed fails naming the chain and its
    /// failure, and nothing reached the origin (whose log is then shown to be live).
    private func checkNeverBack(store: any CrawlStore, address: String) async throws {
        let site = try CrawlSite(pages: 5)
        let relay = try lateRelay(address, downFor: -1)
        let started = Date()
        let (records, progress) = try await CrawlTestHarness.crawl([site.origin + "/"], chains: [[relay.hop]], store: store, chainBackoff: 0.2) {
            $0.retry.maximumRetries = 1
            $0.relayWait = 2
        }
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertGreaterThanOrEqual(elapsed, 2, "waited the relay wait")
        XCTAssertLessThan(elapsed, 10, "and not much more")
        XCTAssertEqual(records.map(\.outcome), [.failed])
        let error = records.first?.error ?? ""
        XCTAssertTrue(error.hasPrefix("no relay chain came back within 2 s (the relay wait): every relay chain for origin.test is down"), error)
        XCTAssertTrue(error.contains("chain 1 (\(address):\(relay.server.port)): hop 1 (\(address):\(relay.server.port)"), error)
        XCTAssertTrue(error.contains("connection refused"), error)
        XCTAssertEqual(progress.failedWaitingForRelays, 1)
        XCTAssertEqual(progress.relayWaitError, error)
        XCTAssertEqual(try site.requests().count, 0, "nothing reached the origin")
        _ = try await CrawlTestHarness.crawl([site.origin + "/"]) { $0.maximumPages = 1 }
        XCTAssertGreaterThan(try site.requests().count, 0, "the origin's log is live")
    }

    func testARelayThatNeverComesBackEndsTheCrawlAfterTheRelayWaitSQLite() async throws {
        try await checkNeverBack(store: try SQLiteCrawlStore(path: nil), address: "127.0.0.102")
    }

    func testARelayThatNeverComesBackEndsTheCrawlAfterTheRelayWaitPostgres() async throws {
        let database = try PostgresTestDatabase()
        try await checkNeverBack(store: try PostgresCrawlStore(url: database.url), address: "127.0.0.103")
        XCTAssertEqual(try database.query("SELECT state, attempts FROM crawl_pages"), ["3|1"], "failed, one attempt counted")
    }
}
