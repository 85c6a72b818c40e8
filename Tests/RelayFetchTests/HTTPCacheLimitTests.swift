import Foundation
import XCTest
@testable import RelayFetch
import RelayFetchTestSupport

/// A site answering every URL with a megabyte it lets caches keep for an hour (static_origin.py
/// --plain --cache-control max-age=3600 on 127.0.0.163, through relay A): a session's cache kept
/// every one of them, so a session that lived long enough ran out of memory. It now holds at most
/// its limit (64 MiB), the oldest dropped first: after 70 such URLs the first comes from the
/// origin again and the last from the cache, as the origin's log shows.
final class HTTPCacheLimitTests: XCTestCase {
    func testCacheHoldsAtMostItsLimitDroppingTheOldestFirst() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("cache-limit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try Data(count: 1 << 20).write(to: root.appendingPathComponent("big.bin"))
        let origin = try HostileServer(script: "static_origin.py", host: "127.0.0.163",
                                       arguments: ["--plain", "--root", root.path, "--cache-control", "max-age=3600"])
        defer { origin.stop() }
        let session = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop()]))
        defer { session.invalidate() }
        func fetch(_ index: Int) async throws -> HTTPResponse {
            try await session.data(from: URL(string: "http://127.0.0.163:\(origin.port)/big.bin?\(index)")!).1
        }
        for index in 0..<70 { _ = try await fetch(index) }
        XCTAssertLessThanOrEqual(session.dataStore.httpCache.totalSize, 64 << 20)
        let first = try await fetch(0), last = try await fetch(69)
        XCTAssertFalse(first.fromCache, "the oldest response was dropped")
        XCTAssertTrue(last.fromCache, "the newest response was kept")
        let targets = try origin.events().filter { $0.hasPrefix("REQUEST\t") }.map { $0.components(separatedBy: "\t")[5] }
        XCTAssertEqual(targets.filter { $0 == "/big.bin?0" }.count, 2)
        XCTAssertEqual(targets.filter { $0 == "/big.bin?69" }.count, 1)
    }
}
