import Foundation
import XCTest
@testable import Crawler

/// The SQLite store: dedup, claims, atomic completion, resume after a kill, WAL on file.
final class CrawlStoreTests: XCTestCase {
    func testSeenSetClaimAndCompletion() throws {
        let store = try SQLiteCrawlStore(path: nil)
        XCTAssertEqual(try store.journalMode(), "memory")
        XCTAssertEqual(try store.enqueue([("https://a.test/", "a.test", 0), ("https://a.test/x", "a.test", 1), ("https://a.test/", "a.test", 0)]), 2)
        let first = try XCTUnwrap(try store.claim(now: 0, busyHosts: []))
        XCTAssertEqual(first.url, "https://a.test/")
        XCTAssertNil(try store.claim(now: 0, busyHosts: ["a.test"]), "busy hosts are skipped")
        let added = try store.complete(first, state: .fetched, status: 200, bytes: 10, digest: "sha256:00", error: nil,
                                       links: [("https://a.test/x", "a.test", 1), ("https://a.test/y", "a.test", 1)], now: 1)
        XCTAssertEqual(added, 1, "x was seen already")
        XCTAssertEqual(try store.counts(), [.fetched: 1, .queued: 2])
        XCTAssertEqual(try store.fetchedBytes(), 10)
        let second = try XCTUnwrap(try store.claim(now: 0, busyHosts: []))
        try store.retry(second, notBefore: 100, error: "503")
        XCTAssertEqual(try store.claim(now: 50, busyHosts: [])?.url, "https://a.test/y", "x waits for its retry time")
        XCTAssertEqual(try store.earliestDue(), 100)
    }

    func testFileStoreIsWALAndClaimedURLsComeBackOnReopen() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("crawl-store-\(UUID().uuidString).db").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        do {
            let store = try SQLiteCrawlStore(path: path)
            XCTAssertEqual(try store.journalMode(), "wal")
            try store.enqueue([("https://a.test/1", "a.test", 0), ("https://a.test/2", "a.test", 0)])
            let claimed = try XCTUnwrap(try store.claim(now: 0, busyHosts: []))
            try store.complete(claimed, state: .fetched, status: 200, bytes: 1, digest: nil, error: nil, links: [], now: 0)
            _ = try store.claim(now: 0, busyHosts: [])  // in flight when the "process dies"
            XCTAssertEqual(try store.counts(), [.fetched: 1, .claimed: 1])
        }
        let reopened = try SQLiteCrawlStore(path: path)
        XCTAssertEqual(try reopened.urls(in: .claimed), ["https://a.test/2"], "what was in flight stays visible until requeued")
        XCTAssertEqual(try reopened.recoverClaims(), 1)
        XCTAssertEqual(try reopened.counts(), [.fetched: 1, .queued: 1])
        XCTAssertEqual(try reopened.urls(in: .queued), ["https://a.test/2"])
    }

    func testUnopenableStoreNamesThePath() {
        XCTAssertThrowsError(try SQLiteCrawlStore(path: "/nonexistent-dir/crawl.db")) { error in
            XCTAssertTrue("\(error)".contains("/nonexistent-dir/crawl.db"), "\(error)")
        }
    }
}
