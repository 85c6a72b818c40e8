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
        assertDialledOnly([.init(kind: .tcp, address: "127.0.0.11:3129")], in: trace)
        XCTAssertEqual(Set(try site.requests().map(\.peer)), ["127.0.0.11"])
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
}
