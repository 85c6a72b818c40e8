import Foundation
import Locking
import XCTest
import RelayFetchTestSupport
@testable import Crawler

/// The PostgreSQL store against the real server of scripts/test-postgres.sh, each test in a
/// database of its own: schema creation by workers starting together, exclusive claims under
/// concurrency, leases that expire and come back, politeness across connections, stored options.
final class PostgresCrawlStoreTests: XCTestCase {
    private var database: PostgresTestDatabase!

    override func setUpWithError() throws {
        try TestServers.ensureRunning()
        database = try PostgresTestDatabase()
    }

    override func tearDown() { database = nil }

    private func store(lease: Double = 60) throws -> PostgresCrawlStore { try PostgresCrawlStore(url: database.url, lease: lease) }

    /// Runs `body` on `count` threads at once (not a thread pool sized by the cores), and waits.
    private static func onThreads(_ count: Int, _ body: @escaping @Sendable () -> Void) {
        let done = DispatchGroup()
        for _ in 0..<count {
            done.enter()
            Thread { body(); done.leave() }.start()
        }
        done.wait()
    }

    private static func urls(_ count: Int, hosts: Int) -> [(url: String, host: String, depth: Int)] {
        (0..<count).map { ("https://h\($0 % hosts).test/page-\($0)", "h\($0 % hosts).test", 0) }
    }

    func testWorkersStartingTogetherCreateTheSchemaOnce() throws {
        let errors = Locked<[String]>([])
        let url = database.url  // the threads open their own stores, without the test case
        Self.onThreads(6) {
            do { _ = try PostgresCrawlStore(url: url, lease: 60) } catch { errors.withLock { $0.append("\(error)") } }
        }
        XCTAssertEqual(errors.withLock { $0 }, [])
        XCTAssertEqual(try database.query("SELECT count(*) FROM pg_tables WHERE tablename LIKE 'crawl_%'"), ["3"])
    }

    func testSkippedByTypeIsFinalAndCountsAsAPage() throws {
        try CrawlStoreTests.checkSkippedByTypeIsFinal(open: { try self.store() })
    }

    func testSeenSetAndCountsAcrossConnections() throws {
        let first = try store(), second = try store()
        XCTAssertEqual(try first.enqueue([("https://a.test/", "a.test", 0), ("https://a.test/x", "a.test", 1)]), 2)
        XCTAssertEqual(try second.enqueue([("https://a.test/x", "a.test", 1), ("https://a.test/y", "a.test", 1)]), 1, "x was seen by the other")
        XCTAssertEqual(try second.counts(), [.queued: 3])
        XCTAssertEqual(try first.urls(in: .queued), ["https://a.test/", "https://a.test/x", "https://a.test/y"])
    }

    /// Four connections claim and complete 400 URLs of 10 hosts at once: every URL is claimed
    /// by exactly one of them, once, and completed once.
    func testClaimsAreExclusiveUnderConcurrency() throws {
        try store().enqueue(Self.urls(400, hosts: 10))
        let claimed = Locked<[Int]>([])
        let errors = Locked<[String]>([])
        let url = database.url
        Self.onThreads(4) {
            do {
                let worker = try PostgresCrawlStore(url: url, lease: 60)
                var idle = 0
                while idle < 50 {
                    guard let entry = try worker.claim(now: Date().timeIntervalSince1970, busyHosts: [], perHost: 100, delay: 0) else {
                        idle += 1
                        usleep(2_000)
                        continue
                    }
                    idle = 0
                    claimed.withLock { $0.append(entry.id) }
                    try worker.complete(entry, state: .fetched, status: 200, bytes: 1, digest: nil, error: nil, links: [], now: 0)
                }
            } catch { errors.withLock { $0.append("\(error)") } }
        }
        XCTAssertEqual(errors.withLock { $0 }, [])
        XCTAssertEqual(claimed.withLock { $0 }.count, 400, "claims in all")
        XCTAssertEqual(Set(claimed.withLock { $0 }).count, 400, "no URL claimed twice")
        XCTAssertEqual(try database.query("SELECT claims, completions, count(*) FROM crawl_pages GROUP BY 1, 2"), ["1|1|400"])
        XCTAssertEqual(try database.query("SELECT count(DISTINCT worker) FROM crawl_pages"), ["4"], "all four took part")
    }

    /// A worker that stops renewing loses its claim when the lease runs out: another worker gets
    /// the URL, and the first one's late outcome is not recorded. Renewal keeps a claim.
    func testLeasesExpireAndComeBackUnlessRenewed() throws {
        let dead = try store(lease: 1), live = try store(lease: 1)
        try dead.enqueue([("https://a.test/1", "a.test", 0), ("https://b.test/2", "b.test", 0)])
        let lost = try XCTUnwrap(try dead.claim(now: 0, busyHosts: [], perHost: 2, delay: 0))
        let kept = try XCTUnwrap(try live.claim(now: 0, busyHosts: [], perHost: 2, delay: 0))
        XCTAssertNil(try live.claim(now: 0, busyHosts: [], perHost: 2, delay: 0), "both URLs are claimed")
        for _ in 0..<4 {
            usleep(400_000)
            try live.renewLeases()
        }
        let reclaimed = try XCTUnwrap(try live.claim(now: Date().timeIntervalSince1970, busyHosts: [], perHost: 2, delay: 0),
                                      "the unrenewed lease ran out (1.6 s > 1 s)")
        XCTAssertEqual(reclaimed.url, lost.url)
        XCTAssertEqual(reclaimed.claim, lost.claim + 1)
        XCTAssertNil(try live.claim(now: Date().timeIntervalSince1970, busyHosts: [], perHost: 2, delay: 0), "the renewed one stays claimed")
        XCTAssertNil(try dead.complete(lost, state: .failed, status: nil, bytes: 0, digest: nil, error: "late", links: [], now: 0,
                                       output: { XCTFail("a lost lease's page is written") }))
        XCTAssertEqual(try database.query("SELECT state, completions FROM crawl_pages WHERE id = \(lost.id)"), ["1|0"],
                       "a lost lease's outcome is ignored")
        var written = 0
        try live.complete(reclaimed, state: .fetched, status: 200, bytes: 5, digest: nil, error: nil, links: [], now: 0, output: { written += 1 })
        XCTAssertEqual(written, 1, "the claim that holds the URL writes its page")
        try live.complete(kept, state: .fetched, status: 200, bytes: 5, digest: nil, error: nil, links: [], now: 0)
        XCTAssertEqual(try database.query("SELECT url, state, completions FROM crawl_pages ORDER BY id"),
                       ["https://a.test/1|2|1", "https://b.test/2|2|1"])
        XCTAssertNil(try live.earliestDue(), "nothing queued, nothing claimed: the crawl is over")
    }

    /// Per-host concurrency and delay hold across two connections, as for two workers.
    func testPolitenessHoldsAcrossConnections() throws {
        let first = try store(), second = try store()
        try first.enqueue(Self.urls(6, hosts: 1) + [("https://other.test/", "other.test", 0)])
        let a = try XCTUnwrap(try first.claim(now: 0, busyHosts: [], perHost: 2, delay: 0.8))
        XCTAssertEqual(a.host, "h0.test")
        XCTAssertEqual(try second.claim(now: 0, busyHosts: [], perHost: 2, delay: 0.8)?.host, "other.test",
                       "h0.test waits 0.8 s between starts, whichever worker starts")
        XCTAssertNil(try second.claim(now: 0, busyHosts: [], perHost: 2, delay: 0.8))
        usleep(900_000)
        let b = try XCTUnwrap(try second.claim(now: 0, busyHosts: [], perHost: 2, delay: 0))
        XCTAssertEqual(b.host, "h0.test")
        usleep(100_000)
        XCTAssertNil(try first.claim(now: 0, busyHosts: [], perHost: 2, delay: 0), "two of h0.test in flight, one per worker")
        try second.complete(b, state: .fetched, status: 200, bytes: 0, digest: nil, error: nil, links: [], now: 0)
        XCTAssertEqual(try first.claim(now: 0, busyHosts: [], perHost: 2, delay: 0)?.host, "h0.test", "a slot is free again")
        try first.hostPause("h0.test", until: Date().timeIntervalSince1970 + 30)
        try first.complete(a, state: .fetched, status: 200, bytes: 0, digest: nil, error: nil, links: [], now: 0)
        XCTAssertNil(try second.claim(now: 0, busyHosts: [], perHost: 2, delay: 0), "paused by the other worker (Retry-After)")
        try second.hostCrawlDelay("other.test", seconds: 5)
        XCTAssertEqual(try database.query("SELECT host, crawl_delay FROM crawl_hosts ORDER BY host"), ["h0.test|0", "other.test|5"])
    }

    /// A retry puts the URL back after its backoff, by the server's clock.
    func testRetryWaitsForItsBackoff() throws {
        let worker = try store()
        try worker.enqueue([("https://a.test/", "a.test", 0)])
        let entry = try XCTUnwrap(try worker.claim(now: 0, busyHosts: [], perHost: 1, delay: 0))
        try worker.retry(entry, notBefore: Date().timeIntervalSince1970 + 0.5, error: "status 503")
        XCTAssertNil(try worker.claim(now: 0, busyHosts: [], perHost: 1, delay: 0))
        let due = try XCTUnwrap(try worker.earliestDue())
        XCTAssertEqual(due - Date().timeIntervalSince1970, 0.5, accuracy: 0.2)
        usleep(600_000)
        XCTAssertEqual(try worker.claim(now: 0, busyHosts: [], perHost: 1, delay: 0)?.attempts, 1)
    }

    /// A URL put back to wait for a relay chain keeps its attempts, is due after its wait by the
    /// server's clock, and only the claim that holds it may put it back.
    func testRequeueCountsNoAttemptAndWaits() throws {
        let worker = try store()
        try worker.enqueue([("https://a.test/", "a.test", 0)])
        let entry = try XCTUnwrap(try worker.claim(now: 0, busyHosts: [], perHost: 1, delay: 0))
        try worker.requeue(entry, notBefore: Date().timeIntervalSince1970 + 0.5, error: "every relay chain is down")
        XCTAssertNil(try worker.claim(now: 0, busyHosts: [], perHost: 1, delay: 0))
        usleep(600_000)
        let again = try XCTUnwrap(try worker.claim(now: 0, busyHosts: [], perHost: 1, delay: 0))
        XCTAssertEqual(again.attempts, 0)
        try worker.requeue(entry, notBefore: 0, error: "stale claim")
        XCTAssertEqual(try database.query("SELECT state, attempts, error FROM crawl_pages"), ["1|0|every relay chain is down"],
                       "an earlier claim cannot put it back")
    }

    func testDifferentOptionsAreRefusedNamingTheOptionInBothStores() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("options-\(UUID().uuidString).db").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        for open in [{ try SQLiteCrawlStore(path: path) as any CrawlStore }, { try self.store() as any CrawlStore }] {
            var configuration = CrawlConfiguration(scope: try CrawlScope(maximumDepth: 3))
            configuration.scope.addSeed(URL(string: "https://a.test/")!)
            configuration.maximumPages = 100
            try open().adopt(CrawlOptions(configuration: configuration, scope: configuration.scope), replacing: false)
            try open().adopt(CrawlOptions(configuration: configuration, scope: configuration.scope), replacing: false)
            configuration.maximumPages = 200
            XCTAssertThrowsError(try open().adopt(CrawlOptions(configuration: configuration, scope: configuration.scope), replacing: false)) {
                XCTAssertTrue("\($0)".contains("max-pages: stored 100, now 200"), "\($0)")
                XCTAssertFalse("\($0)".contains("max-depth"), "\($0)")
            }
            var other = configuration
            other.scope.addSeed(URL(string: "https://b.test/")!)
            XCTAssertThrowsError(try open().adopt(CrawlOptions(configuration: other, scope: other.scope), replacing: false)) {
                XCTAssertTrue("\($0)".contains("seed hosts: stored \"a.test\", now \"a.test\" \"b.test\""), "\($0)")
            }
            try open().adopt(CrawlOptions(configuration: configuration, scope: configuration.scope), replacing: true)
            try open().adopt(CrawlOptions(configuration: configuration, scope: configuration.scope), replacing: false)
        }
    }

    func testUnreachableServerIsNamedWithoutItsPassword() {
        XCTAssertThrowsError(try PostgresCrawlStore(url: "postgres://relayfetch:s3cret@127.0.0.41:5432/none?connect_timeout=2")) { error in
            XCTAssertTrue("\(error)".contains("cannot connect to postgres://relayfetch:***@127.0.0.41:5432/none"), "\(error)")
            XCTAssertFalse("\(error)".contains("s3cret"), "\(error)")
        }
    }
}
