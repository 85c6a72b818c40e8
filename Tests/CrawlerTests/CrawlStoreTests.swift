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

    /// A URL put back to wait for a relay chain is due at its time but keeps its attempts; a
    /// retry counts one.
    func testRequeueCountsNoAttempt() throws {
        let store = try SQLiteCrawlStore(path: nil)
        try store.enqueue([("https://a.test/", "a.test", 0)])
        try store.requeue(try XCTUnwrap(try store.claim(now: 0, busyHosts: [])), notBefore: 10, error: "every relay chain is down")
        XCTAssertNil(try store.claim(now: 5, busyHosts: []), "not due before its time")
        let waited = try XCTUnwrap(try store.claim(now: 10, busyHosts: []))
        XCTAssertEqual(waited.attempts, 0)
        try store.retry(waited, notBefore: 10, error: "503")
        XCTAssertEqual(try store.claim(now: 10, busyHosts: [])?.attempts, 1)
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

    func testSkippedByTypeIsFinalAndCountsAsAPage() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("crawl-store-\(UUID().uuidString).db").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        try Self.checkSkippedByTypeIsFinal(open: { try SQLiteCrawlStore(path: path) })
    }

    /// For either store: a URL completed as skipped by type counts toward the limits, with no
    /// bytes, and stays done for a resumed run (or another worker) rather than coming back.
    /// The first store is closed before the second opens (an SQLite file is one store's).
    static func checkSkippedByTypeIsFinal(open: () throws -> any CrawlStore) throws {
        let binary: CrawlStoreEntry, other: String
        do {
            let first = try open()
            try first.enqueue([("https://a.test/big.bin", "a.test", 0), ("https://a.test/", "a.test", 0)])
            binary = try XCTUnwrap(try first.claim(now: 0, busyHosts: [], perHost: 2, delay: 0))
            other = binary.url == "https://a.test/" ? "https://a.test/big.bin" : "https://a.test/"
            try first.complete(binary, state: .skippedByType, status: 200, bytes: 0, digest: nil, error: nil, links: [], now: 0)
            XCTAssertEqual(try first.counts(), [.skippedByType: 1, .queued: 1])
            XCTAssertEqual(try first.pagesClaimedOrDone(), 1)
            XCTAssertEqual(try first.fetchedBytes(), 0)
        }
        let second = try open()
        XCTAssertEqual(try second.recoverClaims(), 0)
        XCTAssertEqual(try second.urls(in: .skippedByType), [binary.url])
        XCTAssertEqual(try second.claim(now: 0, busyHosts: [], perHost: 2, delay: 0)?.url, other, "not claimed again")
        XCTAssertNil(try second.claim(now: 0, busyHosts: [], perHost: 2, delay: 0))
    }

    /// A store written before --accept-type existed had every type accepted: it agrees with a
    /// run that accepts every type, and not with one that narrows them.
    func testStoresOlderThanAcceptTypeAgreeWithEveryTypeAccepted() throws {
        var configuration = CrawlConfiguration(scope: try CrawlScope())
        var older = Dictionary(uniqueKeysWithValues: CrawlOptions(configuration: configuration, scope: configuration.scope).values.map { ($0.name, $0.value) })
        older["accept-type"] = nil
        XCTAssertEqual(CrawlOptions(configuration: configuration, scope: configuration.scope).differences(from: older), [])
        configuration.acceptedTypes = ["text/html"]
        XCTAssertEqual(CrawlOptions(configuration: configuration, scope: configuration.scope).differences(from: older),
                       ["accept-type: stored (not set), now \"text/html\""])
    }

    func testUnopenableStoreNamesThePath() {
        XCTAssertThrowsError(try SQLiteCrawlStore(path: "/nonexistent-dir/crawl.db")) { error in
            XCTAssertTrue("\(error)".contains("/nonexistent-dir/crawl.db"), "\(error)")
        }
    }
}

/// The bounded set of recent links in front of the store's seen set.
final class RecentURLsTests: XCTestCase {
    func testHoldsTheLastURLsUpToItsCapacity() {
        var recent = RecentURLs(capacity: 2)
        recent.insert("a")
        recent.insert("b")
        recent.insert("a")  // already held: not moved, not counted twice
        XCTAssertTrue(recent.contains("a") && recent.contains("b"))
        recent.insert("c")
        XCTAssertFalse(recent.contains("a"), "the oldest went out")
        XCTAssertTrue(recent.contains("b") && recent.contains("c"))
        recent.insert("d")
        XCTAssertEqual(["b", "c", "d"].map(recent.contains), [false, true, true])
    }
}
