import Foundation
import XCTest
import RelayFetch
import RelayFetchTestSupport

/// Invariant 4: two sessions share no connections (and so no tunnels or TLS sessions).
final class SessionIsolationTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testSessionsOpenTunnelsOfTheirOwnAndReuseOnlyTheirOwn() async throws {
        let counterA = TunnelCounter(), counterB = TunnelCounter()
        let sessionA = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop()]))
        let sessionB = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop()]))
        defer { sessionA.invalidate(); sessionB.invalidate() }
        sessionA.onTunnelOpen { _ in counterA.increment() }
        sessionB.onTunnelOpen { _ in counterB.increment() }
        let url = URL(string: "https://origin.test/index.html")!

        _ = try await sessionA.data(from: url)
        _ = try await sessionA.data(from: url)  // reuses session A's connection
        _ = try await sessionB.data(from: url)  // must not reuse session A's
        _ = try await sessionB.data(from: url)

        XCTAssertEqual(counterA.value, 1, "session A reuses its own tunnel")
        XCTAssertEqual(counterB.value, 1, "session B opens a tunnel of its own")
    }
}

final class TunnelCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}
