import Foundation
import XCTest
import RelayFetchTestSupport

/// Invariants 1 and 3 for `crawl`, at the system-call level: it dials only relay A, and with no
/// --store its SQLite database stays in memory, so nothing at all is written to disk.
extension ProcessLevelPrivacyTests {
    func testCrawlWithoutStoreWritesNothingAndDialsOnlyTheRelay() throws {
        let site = try CrawlSite(pages: 20)
        let (status, output, trace) = try traced(["crawl", site.origin + "/", "--strip-query-param", "utm_source"] + CommandRun.relayArguments)
        XCTAssertEqual(status, 0, output)
        XCTAssertTrue(output.contains("crawled 27 pages"), output)
        XCTAssertEqual(trace.fileWrites, [], "the crawl touched the disk")
        assertDialledOnly(Self.relayA, in: trace)
        XCTAssertEqual(Set(try site.requests().map(\.peer)), ["127.0.0.11"])
    }

    /// With requisites, host-scoped sessions and a requisite on a host the chain does not cover
    /// (the origin's IP literal): still nothing on disk, and the only socket dialled is relay A's.
    func testCrawlWithRequisitesWritesNothingAndNeverDialsTheUncoveredHost() throws {
        let site = try CrawlSite(pages: 3)
        try site.addPageWithRequisites()
        let (status, output, trace) = try traced(["crawl", site.origin + "/req/index.html", "--requisites", "--session-scope", "host",
                                                  "--max-depth", "0", "--match-domain", "origin.test"] + CommandRun.relayArguments)
        XCTAssertEqual(status, 0, output)
        XCTAssertEqual(trace.fileWrites, [], "the crawl touched the disk")
        assertDialledOnly(Self.relayA, in: trace)
        XCTAssertEqual(Set(try site.requests().map(\.path)), ["/robots.txt", "/req/index.html", "/req/style.css", "/req/img.png", "/req/bg.png"])
    }

    /// The positive control: with --store the database (and its WAL) is written, and nothing else.
    func testCrawlWithStoreWritesOnlyTheStore() throws {
        let site = try CrawlSite(pages: 5)
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-store-\(UUID().uuidString).db").path
        defer { for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: store + suffix) } }
        let (status, output, trace) = try traced(["crawl", site.origin + "/", "--store", store] + CommandRun.relayArguments)
        XCTAssertEqual(status, 0, output)
        let writes = trace.fileWrites
        XCTAssertTrue(writes.contains { $0.contains("\"\(store)\"") }, "\(writes)")
        XCTAssertTrue(writes.contains { $0.contains("\"\(store)-wal\"") }, "WAL mode: \(writes)")
        XCTAssertEqual(writes.filter { !$0.contains("\"\(store)") }, [], "only the store is written")
    }

    /// A worker on a shared PostgreSQL store: pages only through relay A, the store's own
    /// connection straight to the database server (the operator's infrastructure, not browsing),
    /// nothing written to disk. With the relay down: exit 1, and nothing at the origin.
    func testCrawlWorkerOnPostgresDialsOnlyTheRelayAndItsStoreAndFailsClosed() throws {
        let database = try PostgresTestDatabase()
        let site = try CrawlSite(pages: 10)
        let (status, output, trace) = try traced(["crawl", site.origin + "/", "--store", database.url] + CommandRun.relayArguments)
        XCTAssertEqual(status, 0, output)
        XCTAssertEqual(trace.fileWrites, [], "the crawl touched the disk")
        assertDialledOnly(Self.relayA.union([.init(kind: .tcp, address: "127.0.0.40:5432")]), in: trace)
        XCTAssertEqual(Set(try site.requests().map(\.peer)), ["127.0.0.11"])

        let downDatabase = try PostgresTestDatabase()
        let downSite = try CrawlSite(pages: 3)
        let down = try TestServers.run([CommandRun.executable, "crawl", downSite.origin + "/", "--store", downDatabase.url, "--retries", "0", "--relay-wait", "1",
                                        "--relay", TestServers.deadRelayURL.absoluteString, "--relay-cacert", TestServers.caFile,
                                        "--cacert", TestServers.caFile])
        XCTAssertEqual(down.status, 1, down.output)
        XCTAssertTrue(down.output.contains("0 fetched, 1 failed"), down.output)
        XCTAssertTrue(down.output.contains("failed waiting for a relay chain; last: no relay chain came back within 1 s"), down.output)
        XCTAssertEqual(try downSite.requests().count, 0, "nothing reached the origin")
        XCTAssertEqual(try downDatabase.query("SELECT state, count(*) FROM crawl_pages GROUP BY state"), ["3|1"], "the seed failed, in the store")
    }
}
