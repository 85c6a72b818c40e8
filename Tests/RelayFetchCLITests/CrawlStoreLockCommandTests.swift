import Foundation
import XCTest
import RelayFetchTestSupport
import Crawler

/// `relayfetch crawl --store FILE` as real processes: while one crawls, a second on the same file
/// is refused at once with one line and status 1, and touches neither the store nor the origin;
/// a kill -9 of the first frees the file, and the same command then resumes and finishes.
final class CrawlStoreLockCommandTests: XCTestCase {
    override func setUpWithError() throws {
        try TestServers.ensureRunning()
        guard FileManager.default.isExecutableFile(atPath: CommandRun.executable) else {
            throw TestServerError(description: "build the executable first (swift build): \(CommandRun.executable)")
        }
    }

    func testASecondProcessIsRefusedAndAKilledOneLeavesTheStoreFree() throws {
        let site = try CrawlSite(pages: 40, serverArguments: ["--delay-ms", "60"])
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-lock-\(UUID().uuidString).db").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) } }
        let arguments = ["crawl", site.origin + "/", "--store", store, "--per-host", "1", "--strip-query-param", "utm_source"]
            + CommandRun.relayArguments
        let first = try CommandRun.start(arguments)
        defer { if first.isRunning { kill(first.processIdentifier, SIGKILL) } }
        let deadline = Date().addingTimeInterval(20)
        while try site.pageFetchCounts().values.reduce(0, +) < 3 && Date() < deadline && first.isRunning { usleep(10_000) }
        XCTAssertTrue(first.isRunning, "the first process is crawling")

        let started = Date()
        let second = try TestServers.run([CommandRun.executable] + arguments)
        XCTAssertEqual(second.status, 1, second.output)
        XCTAssertTrue(second.output.contains("crawl store: \(store) is in use by another relayfetch process"), second.output)
        XCTAssertEqual(second.output.split(separator: "\n").count, 1, second.output)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "refused at once, not after waiting for the lock")
        XCTAssertTrue(first.isRunning, "the first process goes on")
        XCTAssertEqual(try site.pageFetchCounts().values.filter { $0 > 1 }, [], "no page fetched twice: the second fetched nothing")

        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        XCTAssertEqual(first.terminationReason, .uncaughtSignal, "killed mid-crawl")
        let inFlight = Set(try SQLiteCrawlStore(path: store).urls(in: .claimed).compactMap { URLComponents(string: $0)?.percentEncodedPath })
        let resumed = try TestServers.run([CommandRun.executable] + arguments)
        XCTAssertEqual(resumed.status, 0, resumed.output)
        let counts = try site.pageFetchCounts()
        XCTAssertEqual(Set(counts.keys), Set(try site.expectedPaths()), "every page, after the kill")
        let repeated = Set(counts.filter { $0.value > 1 }.keys)
        XCTAssertTrue(repeated.isSubset(of: inFlight), "fetched twice but not in flight at the kill: \(repeated.subtracting(inFlight))")
        let check = try TestServers.run(["/usr/bin/sqlite3", store, "PRAGMA integrity_check"])
        XCTAssertEqual(check.output, "ok\n")
    }
}
