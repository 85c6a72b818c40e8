import Foundation
import XCTest
import RelayFetch
import RelayTransport
import RelayFetchTestSupport

/// The automatic protocol at a hop beyond the first: its QUIC runs inside a CONNECT-UDP stream
/// of the HTTP/3 hop before (RFC 9298), raced against its TCP side (a CONNECT stream through the
/// same hop) after the head start. Relay A and relay B each serve HTTP/3 (aioquic, UDP) and
/// HTTP/2 (nghttpx, TCP) on port 4433.
final class HTTP3FirstPerHopTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testAnAutomaticSecondHopSpeaksHTTP3InsideTheFirstHopsQUIC() async throws {
        let linesBeforeA = try TestServers.allLogLines(TestServers.http3RelayALog).count
        let linesBeforeB = try TestServers.allLogLines(TestServers.http3RelayBLog).count
        let earlierTCP = Set(try TestServers.ownSockets(.tcp, to: "127.0.0.11:4433"))
        let marker = TestServers.marker("h3hop2")
        let session = try Session(configuration: TestServers.configuration(hops: [
            TestServers.relayHop(url: TestServers.http2RelayAURL),
            TestServers.relayHop(token: TestServers.relayBToken, url: TestServers.http2RelayBURL),
        ]))
        defer { session.invalidate() }
        let reports = ReportCollector()
        session.onTunnelOpen { reports.add($0) }
        _ = try await session.data(from: URL(string: "https://origin.test/index.html?\(marker)")!)

        XCTAssertEqual(reports.all.map(\.index), [1, 2])
        XCTAssertEqual(reports.all.map(\.hop), ["127.0.0.11:4433", "127.0.0.12:4433"])
        XCTAssertEqual(reports.all.map(\.protocolName), ["QUIC, HTTP/3 CONNECT", "QUIC, HTTP/3 CONNECT"])
        XCTAssertEqual(Set(try TestServers.ownSockets(.tcp, to: "127.0.0.11:4433")).subtracting(earlierTCP), [], "nothing went over TCP")
        // Relay A's log: our QUIC connection asked for a UDP flow to relay B, and for nothing else.
        let quic = try TestServers.ownSockets(.udp, to: "127.0.0.11:4433")
        let linesA = try TestServers.http3RelayLines(TestServers.http3RelayALog, skipping: linesBeforeA, from: quic)
        XCTAssertEqual(linesA.filter { $0.count > 5 && $0[3] == "connect-udp" }.map { $0[5] }, ["/.well-known/masque/udp/127.0.0.12/4433/"], "\(linesA)")
        XCTAssertFalse(linesA.contains { $0.joined(separator: "\t").contains("origin.test") }, "relay A never sees the origin")
        // Relay B's HTTP/3 log: the CONNECT came from relay A's address, inside that flow.
        let linesB = try TestServers.allLogLines(TestServers.http3RelayBLog).dropFirst(linesBeforeB)
        let connects = linesB.filter { $0.count > 7 && $0[2] == "CONNECT" && $0[4] == "origin.test:443" && $0[1].hasPrefix("127.0.0.11:") }
        XCTAssertFalse(connects.isEmpty, "relay B's HTTP/3 log has the CONNECT: \(Array(linesB))")
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first?.first, "127.0.0.12")
    }

    func testAnAutomaticSecondHopWhoseUDPIsDroppedFallsBackToHTTP2ThroughTheFirstHopsQUIC() async throws {
        // Relay B's nghttpx behind a front on our own address that forwards TCP and drops every
        // datagram (trusted by the relay key: the certificate does not name the front's address).
        let front = try HostileServer(script: "udp_dropping_front.py", host: "127.0.0.90", arguments: ["--target", "127.0.0.12:4433"])
        defer { front.stop() }
        let marker = TestServers.marker("h3hop2fb")
        var hop2 = TestServers.relayHop(token: TestServers.relayBToken, url: URL(string: "https://127.0.0.90:\(front.port)")!, trustTestCA: false)
        hop2.tlsOptions.pinnedPublicKeySHA256 = [try TestServers.relayPublicKeySHA256()]
        let linesBeforeA = try TestServers.allLogLines(TestServers.http3RelayALog).count
        let session = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop(url: TestServers.http2RelayAURL), hop2]))
        defer { session.invalidate() }
        let reports = ReportCollector()
        session.onTunnelOpen { reports.add($0) }

        _ = try await session.data(from: URL(string: "https://origin.test/index.html?\(marker)")!)
        XCTAssertEqual(reports.all.map(\.protocolName), ["QUIC, HTTP/3 CONNECT", "HTTPS, HTTP/2 CONNECT"])
        XCTAssertEqual(reports.all.last?.hop, "127.0.0.90:\(front.port)")
        let dropped = try front.events().filter { $0.hasPrefix("DROPPED") }.count
        XCTAssertGreaterThan(dropped, 0, "QUIC to hop 2 was tried first: the front dropped its packets")
        XCTAssertEqual(try front.events().filter { $0 == "CONNECTION" }.count, 1)
        // Relay A's log: a UDP flow to the front (QUIC's try), then a CONNECT to it (the TCP side).
        let quic = try TestServers.ownSockets(.udp, to: "127.0.0.11:4433")
        let linesA = try TestServers.http3RelayLines(TestServers.http3RelayALog, skipping: linesBeforeA, from: quic)
        XCTAssertEqual(linesA.filter { $0.count > 5 && $0[3] == "connect-udp" }.map { $0[5] }, ["/.well-known/masque/udp/127.0.0.90/\(front.port)/"], "\(linesA)")
        XCTAssertEqual(linesA.filter { $0.count > 4 && $0[2] == "CONNECT" && $0[4] == "127.0.0.90:\(front.port)" }.count, 1, "\(linesA)")
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first?.first, "127.0.0.12")

        // The session remembers: the next tunnel goes to hop 2 over TCP, without a QUIC try.
        _ = try await session.data(from: URL(string: "https://origin2.test/index.html")!)
        XCTAssertEqual(reports.all.count, 3, "only hop 2's tunnel is new: \(reports.all)")
        XCTAssertEqual(reports.all.last?.protocolName, "HTTPS, HTTP/2 CONNECT")
        XCTAssertEqual(reports.all.last?.reusedConnection, true, "over the HTTP/2 connection to hop 2")
        // No new QUIC try: relay A opened no second CONNECT-UDP flow (the first try's handshake
        // may still retransmit inside its own flow, which the front drops, until it gives up).
        let linesAfter = try TestServers.http3RelayLines(TestServers.http3RelayALog, skipping: linesBeforeA, from: quic)
        XCTAssertEqual(linesAfter.filter { $0.count > 5 && $0[3] == "connect-udp" }.count, 1, "no QUIC try for the second tunnel: \(linesAfter)")
    }
    func testASecondHopDownOnBothSidesIsAnErrorNamingHopTwoAndReachesNoOrigin() async throws {
        // Nothing listens on 127.0.0.12:4499, UDP or TCP: QUIC inside CONNECT-UDP gets no answer,
        // and relay A answers the TCP side's CONNECT with an error.
        let marker = TestServers.marker("h3hop2down")
        let deadB = TestServers.relayHop(token: TestServers.relayBToken, url: URL(string: "https://127.0.0.12:4499")!)
        let session = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop(url: TestServers.http2RelayAURL), deadB],
                                                                           connectTimeout: 2))
        defer { session.invalidate() }
        for host in ["origin.test", TestServers.originAAddress] {
            let failure = await session.fetchError(URL(string: "https://\(host)/index.html?\(marker)")!)
            let error = try XCTUnwrap(failure, "hop 2 is down, yet \(host) loaded")
            XCTAssertEqual(error.relayError?.hop.index, 2, error.description)
            XCTAssertTrue(error.description.hasPrefix("hop 2 (127.0.0.12:4499"), error.description)
        }
        try await TestServers.proveDirectlyReachable(TestServers.originAAddress)
        XCTAssertEqual(try TestServers.logLines(TestServers.originALog, containing: marker).count, 0, "origin A was reached")
    }
    func testWhenTheFirstHopsUDPIsDroppedBothHopsFallBackToHTTP2AndTheSessionRemembers() async throws {
        // Relay A's nghttpx behind a front on our own address that drops every datagram: hop 1
        // ends up on TCP, and hop 2 behind it cannot use QUIC (no CONNECT-UDP over TCP).
        let front = try HostileServer(script: "udp_dropping_front.py", host: "127.0.0.91", arguments: ["--target", "127.0.0.11:4433"])
        defer { front.stop() }
        var hop1 = TestServers.relayHop(url: URL(string: "https://127.0.0.91:\(front.port)")!, trustTestCA: false)
        hop1.tlsOptions.pinnedPublicKeySHA256 = [try TestServers.relayPublicKeySHA256()]
        let hop2 = TestServers.relayHop(token: TestServers.relayBToken, url: TestServers.http2RelayBURL)
        let marker = TestServers.marker("h3hop1drop")
        let session = try Session(configuration: TestServers.configuration(hops: [hop1, hop2]))
        defer { session.invalidate() }
        let reports = ReportCollector()
        session.onTunnelOpen { reports.add($0) }

        let started = Date()
        _ = try await session.data(from: URL(string: "https://origin.test/index.html?\(marker)")!)
        let first = Date().timeIntervalSince(started)
        XCTAssertEqual(reports.all.map(\.protocolName), ["HTTPS, HTTP/2 CONNECT", "HTTPS, HTTP/2 CONNECT"])
        XCTAssertGreaterThan(try front.events().filter { $0.hasPrefix("DROPPED") }.count, 0, "QUIC was tried first")
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first?.first, "127.0.0.12")

        let again = Date()
        _ = try await session.data(from: URL(string: "https://origin2.test/index.html")!)
        let second = Date().timeIntervalSince(again)
        XCTAssertLessThan(second, first, "the session remembers that TCP won at hop 1 (first \(first) s, second \(second) s)")
        XCTAssertEqual(try front.events().filter { $0 == "CONNECTION" }.count, 1, "one HTTP/2 connection to hop 1 for both tunnels")
        print("HTTP3FirstPerHopTests: first tunnel with hop 1's UDP dropped \(first) s, next \(second) s")
    }
}
