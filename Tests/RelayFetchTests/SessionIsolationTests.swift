import Foundation
import XCTest
import RelayFetch
import RelayFetchTestSupport

/// Invariant 4: two sessions share no connections (and so no tunnels or TLS sessions).
final class SessionIsolationTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testSessionsOpenTunnelsOfTheirOwnAndReuseOnlyTheirOwn() async throws {
        let relay = "127.0.0.11:3129"
        let earlier = Set(try TestServers.ownSockets(.tcp, to: relay))
        let tunnelLine = "\tCONNECT\th19.origin.test:443\t200\t"  // a name no other test uses
        let tunnelsBefore = try TestServers.logLines(TestServers.relayLog, containing: tunnelLine).count
        let sessionA = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop()]))
        let sessionB = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop()]))
        let url = URL(string: "https://h19.origin.test/index.html")!

        // Connections to the relay as the kernel lists them, not as the sessions count them.
        _ = try await sessionA.data(from: url)
        _ = try await sessionA.data(from: url)  // reuses session A's connection
        let ofA = Set(try TestServers.ownSockets(.tcp, to: relay)).subtracting(earlier)
        _ = try await sessionB.data(from: url)  // must not reuse session A's
        _ = try await sessionB.data(from: url)
        let ofB = Set(try TestServers.ownSockets(.tcp, to: relay)).subtracting(earlier).subtracting(ofA)
        sessionA.invalidate()
        sessionB.invalidate()  // squid logs each tunnel when it closes

        XCTAssertEqual(ofA.count, 1, "session A reuses its own tunnel")
        XCTAssertEqual(ofB.count, 1, "session B opens a tunnel of its own")
        let tunnels = try TestServers.waitForLogLines(TestServers.relayLog, containing: tunnelLine, skipping: tunnelsBefore, count: 2)
        XCTAssertEqual(tunnels.count, 2, "the relay's log: one tunnel per session, four requests: \(tunnels)")
    }
}
