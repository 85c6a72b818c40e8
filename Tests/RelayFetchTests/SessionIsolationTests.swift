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

    func testSessionsNeverShareTheQUICConnectionToASecondHTTP3Hop() async throws {
        // Relay B of this test's own (127.0.0.140), so its log holds these requests only.
        let relayB = try HTTP3RelayInstance(host: "127.0.0.140")
        let hops = [TestServers.relayHop(url: TestServers.http2RelayAURL, relayProtocol: .http3),
                    TestServers.relayHop(token: TestServers.relayBToken, url: URL(string: "https://\(relayB.host):\(relayB.port)")!, relayProtocol: .http3)]
        let sessionA = try Session(configuration: TestServers.configuration(hops: hops))
        let sessionB = try Session(configuration: TestServers.configuration(hops: hops))
        defer {
            sessionA.invalidate()
            sessionB.invalidate()
            relayB.stop()  // now: an async test's frame, and the relay in it, may outlive the test
        }
        for session in [sessionA, sessionB, sessionA, sessionB] {
            // another origin each time: a tunnel of its own, on the session's connection to hop 2 once it has one
            let host = session === sessionA ? "h17.origin.test" : "h18.origin.test"
            _ = try await session.data(from: URL(string: "https://\(host)/index.html?\(TestServers.marker("h3iso"))")!)
            _ = try await session.data(from: URL(string: "https://origin2.test/index.html?\(TestServers.marker("h3iso"))")!)
        }
        let connects = try relayB.lines().with(HTTP3RelayLogField.method, "CONNECT").with(HTTP3RelayLogField.status, "200")
        let peerOf = { (authority: String) in Set(connects.with(HTTP3RelayLogField.authority, authority).values(HTTP3RelayLogField.peer)) }
        let ofA = peerOf("h17.origin.test:443"), ofB = peerOf("h18.origin.test:443")
        XCTAssertEqual(ofA.count, 1, "session A's tunnels share its QUIC connection to relay B: \(connects)")
        XCTAssertEqual(ofB.count, 1, "so do session B's: \(connects)")
        XCTAssertTrue(ofA.isDisjoint(with: ofB), "each session has a connection of its own: \(connects)")
        XCTAssertEqual(peerOf("origin2.test:443"), ofA.union(ofB), "origin2.test went over each session's own connection: \(connects)")
    }
}
