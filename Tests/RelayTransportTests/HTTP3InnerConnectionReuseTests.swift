import Foundation
import XCTest
@testable import RelayTransport
import RelayFetchTestSupport

/// Two HTTP/3 hops where the second is a relay of the test's own (`HTTP3RelayInstance` on
/// 127.0.0.140 and a port of its own, so its log holds this test's requests only): later tunnels through hop 2 open a
/// CONNECT stream on the QUIC connection to hop 2 that the first tunnel set up, inside the one
/// CONNECT-UDP flow through relay A; when that connection dies, the next tunnel opens another.
final class HTTP3InnerConnectionReuseTests: XCTestCase {
    static let relayBHost = "127.0.0.140"
    static let targets = ["origin.test", "h1.origin.test", "h2.origin.test"]

    override func setUpWithError() throws { try TestServers.ensureRunning() }

    /// Relay A (shared), then `relayB`.
    static func hops(_ relayB: HTTP3RelayInstance) -> [RelayEndpoint] {
        var hop2 = HTTP3RelayTests.relay(token: TestServers.relayBToken, host: relayB.host)
        hop2.port = relayB.port
        return [HTTP3RelayTests.relay(), hop2]
    }

    func testLaterTunnelsToOtherOriginsReuseTheQUICConnectionToHop2() throws {
        let relayB = try HTTP3RelayInstance(host: Self.relayBHost)
        let session = HTTP3TestChain()
        defer { session.end() }
        let linesBeforeA = try TestServers.allLogLines(HTTP3ChainTests.relayALog).count
        var reused: [Bool?] = []
        var ours: [String] = []
        for target in Self.targets {
            let marker = TestServers.marker("h3reuse")
            let (tunnel, reports) = try session.tunnel(through: Self.hops(relayB), to: TunnelTarget(host: target, port: 443)).get()
            reused.append(reports.last?.reusedConnection)
            ours = try TestServers.ownSockets(.udp, to: "127.0.0.11:4433")
            XCTAssertTrue(session.fetch(over: tunnel, path: "/index.html?\(marker)").contains("relayfetch sample site"), target)
        }
        XCTAssertEqual(reused, [false, true, true], "hop 2's reports")
        XCTAssertEqual(ours.count, 1, "one QUIC connection to relay A: \(ours)")
        let linesA = try TestServers.http3RelayLines(HTTP3ChainTests.relayALog, skipping: linesBeforeA, from: ours)
        let flows = linesA.with(HTTP3RelayLogField.connectProtocol, "connect-udp")
        XCTAssertEqual(flows.values(HTTP3RelayLogField.path), ["/.well-known/masque/udp/\(relayB.host)/\(relayB.port)/"], "relay A: one CONNECT-UDP flow for three tunnels: \(linesA)")
        XCTAssertEqual(flows.values(HTTP3RelayLogField.status), ["200"])
        let connects = try relayB.lines().with(HTTP3RelayLogField.method, "CONNECT")
        XCTAssertEqual(connects.values(HTTP3RelayLogField.authority), Self.targets.map { "\($0):443" }, "relay B's log: \(connects)")
        XCTAssertEqual(connects.values(HTTP3RelayLogField.status), ["200", "200", "200"])
        let peers = Set(connects.values(HTTP3RelayLogField.peer))
        XCTAssertEqual(peers.count, 1, "relay B: every CONNECT from one QUIC connection (one UDP port of relay A): \(connects)")
        XCTAssertEqual(peers.first?.hasPrefix("127.0.0.11:"), true)
        XCTAssertEqual(session.connectionsOpened[2], 1)
    }

    func testSessionsNeverShareTheQUICConnectionToHop2() throws {
        let relayB = try HTTP3RelayInstance(host: Self.relayBHost)
        let first = HTTP3TestChain(), second = HTTP3TestChain()
        defer { first.end(); second.end() }
        for session in [first, second, first, second] {
            let (tunnel, _) = try session.tunnel(through: Self.hops(relayB)).get()
            XCTAssertTrue(session.fetch(over: tunnel, path: "/index.html?\(TestServers.marker("h3iso"))").contains("relayfetch sample site"))
        }
        let connects = try relayB.lines().with(HTTP3RelayLogField.method, "CONNECT")
        XCTAssertEqual(connects.count, 4, "\(connects)")
        let peers = connects.values(HTTP3RelayLogField.peer)
        XCTAssertEqual(Set(peers).count, 2, "one QUIC connection to relay B per session: \(connects)")
        XCTAssertEqual(peers[0], peers[2])
        XCTAssertEqual(peers[1], peers[3])
        XCTAssertNotEqual(peers[0], peers[1])
    }

    func testATunnelAfterHop2RestartsOpensAFreshConnection() throws {
        let relayB = try HTTP3RelayInstance(host: Self.relayBHost)
        let session = HTTP3TestChain()
        defer { session.end() }
        XCTAssertTrue(try fetch(through: session, relayB, to: "origin.test"))
        relayB.stop()  // CONNECTION_CLOSE to its clients, through relay A
        let down = session.tunnel(through: Self.hops(relayB), connectTimeout: 2)
        guard case .failure(let error) = down else { return XCTFail("a tunnel through a stopped hop 2 opened") }
        XCTAssertEqual(error.hop.index, 2, "\(error)")
        try relayB.start()
        XCTAssertTrue(try fetch(through: session, relayB, to: "h1.origin.test"))
        XCTAssertTrue(try fetch(through: session, relayB, to: "h2.origin.test"))
        // The tunnel that timed out may still have reached relay B once it was back (its
        // connection's handshake outlives the attempt, which then closes the late tunnel).
        let connects = try relayB.lines().with(HTTP3RelayLogField.method, "CONNECT").with(HTTP3RelayLogField.status, "200")
        let before = connects.first?[HTTP3RelayLogField.peer.rawValue]
        let after = ["h1.origin.test:443", "h2.origin.test:443"].map { connects.with(HTTP3RelayLogField.authority, $0).values(HTTP3RelayLogField.peer) }
        XCTAssertEqual(after, [[after[0].first ?? "-"], [after[0].first ?? "-"]], "later tunnels share one new connection: \(connects)")
        XCTAssertNotEqual(after[0].first, before, "after the restart a new QUIC connection (a new flow through relay A): \(connects)")
    }

    func testATunnelAfterHop2WentSilentOpensAFreshConnection() throws {
        let relayB = try HTTP3RelayInstance(host: Self.relayBHost)
        let session = HTTP3TestChain()
        defer { session.end() }
        XCTAssertTrue(try fetch(through: session, relayB, to: "origin.test"))
        relayB.stop(graceful: false)  // no CONNECTION_CLOSE: the connection to it just goes quiet
        try relayB.start()
        let stalled = session.tunnel(through: Self.hops(relayB), connectTimeout: 2)
        if case .failure(let error) = stalled { XCTAssertEqual(error.hop.index, 2, "\(error)") }
        XCTAssertTrue(try fetch(through: session, relayB, to: "h1.origin.test"), "the tunnel after a stalled one opens a fresh connection")
        let connects = try relayB.lines().with(HTTP3RelayLogField.method, "CONNECT").with(HTTP3RelayLogField.status, "200")
        XCTAssertEqual(Set(connects.values(HTTP3RelayLogField.peer)).count, 2, "\(connects)")
    }

    func testATunnelAfterTheConnectionToHop2IdledOutOpensAFreshOne() throws {
        let relayB = try HTTP3RelayInstance(host: Self.relayBHost, idleTimeout: 1)
        let session = HTTP3TestChain()
        defer { session.end() }
        XCTAssertTrue(try fetch(through: session, relayB, to: "origin.test"))
        Thread.sleep(forTimeInterval: 3)  // past the relay's idle timeout, which QUIC's keep-alive (15 s) does not beat
        XCTAssertTrue(try fetch(through: session, relayB, to: "h1.origin.test"))
        let connects = try relayB.lines().with(HTTP3RelayLogField.method, "CONNECT").with(HTTP3RelayLogField.status, "200")
        XCTAssertEqual(Set(connects.values(HTTP3RelayLogField.peer)).count, 2, "\(connects)")
    }

    func testATunnelAfterHop2SentGOAWAYOpensAFreshConnection() throws {
        let relayB = try HTTP3RelayInstance(host: Self.relayBHost, goAwayAfter: 2)
        let session = HTTP3TestChain()
        defer { session.end() }
        for target in Self.targets { XCTAssertTrue(try fetch(through: session, relayB, to: target), target) }
        let connects = try relayB.lines().with(HTTP3RelayLogField.method, "CONNECT").with(HTTP3RelayLogField.status, "200")
        XCTAssertEqual(connects.values(HTTP3RelayLogField.authority), Self.targets.map { "\($0):443" })
        let peers = connects.values(HTTP3RelayLogField.peer)
        XCTAssertEqual(peers.count, 3)
        XCTAssertEqual(peers.first, peers.dropFirst().first, "two tunnels on the first connection: \(connects)")
        XCTAssertNotEqual(peers.last, peers.first, "after its GOAWAY, a new connection: \(connects)")
    }

    /// A tunnel to `target` through both hops and a GET over it; whether the sample page came back.
    private func fetch(through session: HTTP3TestChain, _ relayB: HTTP3RelayInstance, to target: String) throws -> Bool {
        let (tunnel, _) = try session.tunnel(through: Self.hops(relayB), to: TunnelTarget(host: target, port: 443)).get()
        return session.fetch(over: tunnel, path: "/index.html?\(TestServers.marker("h3reuse"))").contains("relayfetch sample site")
    }
}
