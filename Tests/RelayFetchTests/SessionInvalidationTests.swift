import Foundation
import Locking
import XCTest
@testable import RelayFetch
import RelayFetchTestSupport

/// What an ended session still answers: its connection counts, at once, never a hang; and
/// that nothing of it runs once `invalidate()` has returned.
final class SessionInvalidationTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    /// Once `invalidate()` returns, the session's curl and I/O threads have closed their
    /// connections and ended, so a process may exit right after (an exit handler such as
    /// OPENSSL_cleanup meeting a session thread still ending freed the same block twice).
    func testInvalidateReturnsOnceTheSessionThreadsHaveEnded() async throws {
        let session = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop()]))
        _ = try await session.data(from: URL(string: "https://origin.test/index.html?\(TestServers.marker("threads-end"))")!)
        XCTAssertFalse(session.engine.hasEnded || session.opener.loop.hasEnded, "both threads run while the session does")
        session.invalidate()
        XCTAssertTrue(session.engine.hasEnded, "the curl thread was still running")
        XCTAssertTrue(session.opener.loop.hasEnded, "the I/O thread was still running")
    }

    func testRelayConnectionsOpenedReturnsTheLastCountsAfterInvalidate() async throws {
        let session = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop()]))
        _ = try await session.data(from: URL(string: "https://origin.test/index.html?\(TestServers.marker("invalidate"))")!)
        let before = await session.relayConnectionsOpened()
        XCTAssertEqual(before, [1: 1])
        session.invalidate()
        // Right after invalidate (the loop may still be draining) and once its thread has surely stopped.
        let justAfter = try await countsWithin(seconds: 5, session)
        try await Task.sleep(nanoseconds: 300_000_000)
        let later = try await countsWithin(seconds: 5, session)
        XCTAssertEqual(justAfter, before)
        XCTAssertEqual(later, before)
    }

    /// `relayConnectionsOpened()`, or a failure when it has not returned within `seconds` (polled,
    /// so a call that never returns fails the test instead of hanging it).
    private func countsWithin(seconds: Double, _ session: Session) async throws -> [Int: Int] {
        let answer = CountsBox()
        Task { answer.set(await session.relayConnectionsOpened()) }
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let counts = answer.value { return counts }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        throw TestServerError(description: "relayConnectionsOpened() did not return within \(seconds) s after invalidate()")
    }
}

private final class CountsBox: Sendable {
    private let counts = Locked<[Int: Int]?>(nil)
    var value: [Int: Int]? { counts.withLock { $0 } }
    func set(_ value: [Int: Int]) { counts.withLock { $0 = value } }
}
