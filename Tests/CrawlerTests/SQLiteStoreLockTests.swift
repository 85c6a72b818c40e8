import Foundation
import XCTest
import RelayFetchTestSupport
@testable import Crawler

/// An SQLite store file is one process's: a second opener is refused at once, naming the file;
/// the lock goes with the store. A claim is one transaction: another writer of the file (here a
/// Python process with its own SQLite, which takes no notice of our lock) cannot slip a change
/// between the choice of a URL and its claim.
final class SQLiteStoreLockTests: XCTestCase {
    private var path = ""

    override func setUp() {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("store-lock-\(UUID().uuidString).db").path
    }

    override func tearDown() {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    func testASecondOpenerIsRefusedUntilTheFirstIsClosed() throws {
        var first: SQLiteCrawlStore? = try SQLiteCrawlStore(path: path)
        try first?.enqueue([("https://a.test/", "a.test", 0)])
        let started = Date()
        XCTAssertThrowsError(try SQLiteCrawlStore(path: path)) { error in
            XCTAssertTrue("\(error)".contains("\(path) is in use by another relayfetch process"), "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 1, "refused at once, not after a wait")
        XCTAssertEqual(try first?.counts(), [.queued: 1], "the first store is untouched")
        first = nil
        XCTAssertEqual(try SQLiteCrawlStore(path: path).urls(in: .queued), ["https://a.test/"], "free again once closed")
    }

    /// Names SQLite would read as special are files too, locked like any other.
    func testSpecialNamesAreFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("store-names-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let current = FileManager.default.currentDirectoryPath
        XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(folder.path))
        defer { _ = FileManager.default.changeCurrentDirectoryPath(current) }
        for name in [":memory:", "file:crawl.db"] {
            let store = try SQLiteCrawlStore(path: name)
            XCTAssertEqual(try store.journalMode(), "wal", name)
            XCTAssertThrowsError(try SQLiteCrawlStore(path: name), name)
        }
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: folder.path)).intersection([":memory:", "file:crawl.db"]),
                       [":memory:", "file:crawl.db"])
    }

    /// The writer marks the oldest URL fetched inside a transaction it holds for 0.5 s, and the
    /// claim starts meanwhile: a claim that chose before the writer committed and marked after
    /// would take a page already done (fetched twice, recorded twice); one transaction waits,
    /// then chooses the next URL.
    func testAClaimIsOneTransaction() throws {
        let store = try SQLiteCrawlStore(path: path)
        try store.enqueue([("https://a.test/1", "a.test", 0), ("https://a.test/2", "a.test", 0)])
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: HostileServer.python)
        writer.arguments = ["-c", """
            import sqlite3, sys, time
            db = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=10)
            db.execute("BEGIN IMMEDIATE")
            db.execute("UPDATE pages SET state = 2, status = 200 WHERE url = 'https://a.test/1'")
            print("holding", flush=True)
            time.sleep(0.5)
            db.execute("COMMIT")
            """, path]
        let output = Pipe()
        writer.standardOutput = output
        try writer.run()
        defer { if writer.isRunning { writer.terminate() } }
        // Blocks until the writer holds its transaction (or has ended).
        let said = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        XCTAssertTrue(said.hasPrefix("holding"), "the writer holds the file: \(said)")
        let claimed = try XCTUnwrap(try store.claim(now: 0, busyHosts: []))
        writer.waitUntilExit()
        XCTAssertEqual(writer.terminationStatus, 0)
        XCTAssertEqual(claimed.url, "https://a.test/2", "the page done meanwhile is not claimed")
        XCTAssertEqual(try store.urls(in: .fetched), ["https://a.test/1"], "and stays done")
        XCTAssertEqual(try store.urls(in: .claimed), ["https://a.test/2"])
    }
}
