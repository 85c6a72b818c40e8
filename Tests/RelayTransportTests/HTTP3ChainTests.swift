import Foundation
import XCTest
@testable import RelayTransport
import RelayFetchTestSupport

/// Two HTTP/3 hops against the aioquic relays: QUIC(relay A) -> CONNECT-UDP(relay B's UDP port)
/// -> QUIC(relay B) inside the datagram flow -> HTTP/3 CONNECT(origin:443) -> TLS(origin) -> HTTP/1.1.
final class HTTP3ChainTests: XCTestCase {
    static let relayALog = TestServers.http3RelayALog
    static let relayBLog = TestServers.http3RelayBLog

    override func setUpWithError() throws { try TestServers.ensureRunning() }

    static func relayB(token: String? = TestServers.relayBToken) -> RelayEndpoint {
        HTTP3RelayTests.relay(token: token, host: "127.0.0.12")
    }

    func testTwoHTTP3HopsCarryTLSAndHTTP1ToTheOrigin() throws {
        let session = HTTP3TestChain()
        defer { session.end() }
        let marker = TestServers.marker("h3h3")
        let linesBeforeA = try TestServers.allLogLines(Self.relayALog).count
        let linesBeforeB = try TestServers.allLogLines(Self.relayBLog).count
        let (tunnel, reports) = try session.tunnel(through: [HTTP3RelayTests.relay(), Self.relayB()]).get()
        XCTAssertEqual(reports.map(\.hop.index), [1, 2])
        XCTAssertEqual(reports.map(\.hop.endpoint), ["127.0.0.11:4433", "127.0.0.12:4433"])
        XCTAssertEqual(reports.last?.hop.protocolName, "QUIC, HTTP/3 CONNECT")
        let response = session.fetch(over: tunnel, path: "/index.html?\(marker)")
        XCTAssertTrue(response.hasPrefix("HTTP/1.1 200"), response)
        XCTAssertTrue(response.contains("<title>relayfetch sample site</title>"), response)
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first?.first, "127.0.0.12")

        let linesA = try TestServers.http3RelayLines(Self.relayALog, skipping: linesBeforeA,
                                                     from: try TestServers.ownSockets(.udp, to: "127.0.0.11:4433"))
        XCTAssertEqual(linesA.count, 1, "relay A logged one request from this process's QUIC connection: \(linesA)")
        let linesB = try TestServers.allLogLines(Self.relayBLog).dropFirst(linesBeforeB)
        let udp = linesA.filter { $0.count > 7 && $0[2] == "CONNECT" && $0[3] == "connect-udp" }
        XCTAssertEqual(udp.last?[5], "/.well-known/masque/udp/127.0.0.12/4433/", "\(Array(linesA))")
        XCTAssertEqual(udp.last?[6], "200")
        XCTAssertFalse(linesA.contains { $0.joined(separator: "\t").contains("origin.test") }, "relay A never sees the origin")
        let connect = linesB.filter { $0.count > 7 && $0[2] == "CONNECT" && $0[4] == "origin.test:443" }
        XCTAssertEqual(connect.last?[1].hasPrefix("127.0.0.11:"), true, "\(Array(linesB))")
        XCTAssertEqual(connect.last?[6], "200")
        // each relay sees its own token only
        XCTAssertTrue(linesA.allSatisfy { !$0.joined(separator: "\t").contains("relay-token-B") })
        XCTAssertTrue(linesB.allSatisfy { !$0.joined(separator: "\t").contains("relay-token-A") })
        XCTAssertEqual(udp.last?[7], TestServers.relayToken)
        XCTAssertEqual(connect.last?[7], TestServers.relayBToken)
    }

    func testOneMebibyteComesThroughTwoHTTP3HopsIntact() throws {
        let session = HTTP3TestChain()
        defer { session.end() }
        let (tunnel, _) = try session.tunnel(through: [HTTP3RelayTests.relay(), Self.relayB()]).get()
        let response = session.fetchBytes(over: tunnel, path: "/big", timeout: 30)
        let headerEnd = (0..<max(0, response.count - 3)).first { Array(response[$0..<$0 + 4]) == Array("\r\n\r\n".utf8) }
        XCTAssertTrue(response.starts(with: Array("HTTP/1.1 200".utf8)), String(decoding: response.prefix(200), as: UTF8.self))
        XCTAssertEqual(headerEnd.map { response.count - $0 - 4 }, 1 << 20)
    }

    func testChainedTunnelsShareTheQUICConnectionsToBothHops() throws {
        let session = HTTP3TestChain()
        defer { session.end() }
        let hops = [HTTP3RelayTests.relay(), Self.relayB()]
        let linesBeforeA = try TestServers.allLogLines(Self.relayALog).count
        let (first, second) = session.twoTunnels(through: hops)
        let (tunnelA, _) = try first.get(), (tunnelB, _) = try second.get()
        let markerA = TestServers.marker("h3h3a"), markerB = TestServers.marker("h3h3b")
        XCTAssertTrue(session.fetch(over: tunnelA, path: "/index.html?\(markerA)").contains("relayfetch sample site"))
        XCTAssertTrue(session.fetch(over: tunnelB, path: "/index.html?\(markerB)").contains("relayfetch sample site"))
        let (third, reports) = try session.tunnel(through: hops).get()
        XCTAssertEqual(reports.map(\.hop.index), [2], "the third tunnel opens a stream on the connection to hop 2 only")
        XCTAssertEqual(reports.first?.reusedConnection, true)
        // The kernel: one UDP socket to relay A; relay A: one CONNECT-UDP stream from it, which
        // carries the QUIC connection to relay B that all three tunnels share (the second waited
        // for the first's handshake).
        let ours = try TestServers.ownSockets(.udp, to: "127.0.0.11:4433")
        XCTAssertEqual(ours.count, 1, "one QUIC connection to relay A: \(ours)")
        let streams = try TestServers.http3RelayLines(Self.relayALog, skipping: linesBeforeA, from: ours)
        XCTAssertEqual(streams.with(HTTP3RelayLogField.connectProtocol, "connect-udp").with(HTTP3RelayLogField.status, "200").count,
                       1, "relay A's log: \(streams)")
        session.loop.execute { third.close() }
    }

    func testHopTwoRefusingCONNECTNamesHop2() throws {
        let session = HTTP3TestChain()
        defer { session.end() }
        let result = session.tunnel(through: [HTTP3RelayTests.relay(), Self.relayB(token: nil)])
        guard case .failure(let error) = result else { return XCTFail("expected 407 from relay B, got a tunnel") }
        XCTAssertEqual(error.hop.index, 2)
        XCTAssertEqual(error.hop.endpoint, "127.0.0.12:4433")
        XCTAssertEqual(error.cause, .tunnelRefused(status: 407, reason: "Proxy Authentication Required"))
    }

    func testASilentSecondQUICHopFallsBackToItsHTTP2EndpointThroughHop1() throws {
        let (silent, port) = try HTTP3EchoServer.boundSocket(type: SOCK_DGRAM, address: "127.0.0.14")
        defer { close(silent) }
        var hop2 = Self.relayB()
        hop2.host = "127.0.0.14"
        hop2.port = port
        hop2.fallback = RelayFallback(host: "127.0.0.12", port: 4433)
        let session = HTTP3TestChain()
        defer { session.end() }
        let marker = TestServers.marker("h3fb2")
        let started = Date()
        let (tunnel, reports) = try session.tunnel(through: [HTTP3RelayTests.relay(), hop2]).get()
        XCTAssertGreaterThan(Date().timeIntervalSince(started), 0.29, "QUIC to hop 2 was tried first, with its head start (0.3 s)")
        XCTAssertEqual(reports.last?.hop.endpoint, "127.0.0.12:4433")
        XCTAssertEqual(reports.last?.hop.protocolName, "HTTPS, HTTP/2 CONNECT")
        XCTAssertTrue(session.fetch(over: tunnel, path: "/index.html?\(marker)").contains("relayfetch sample site"))
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first?.first, "127.0.0.12")
    }

    func testCapsuleCodecRoundTripsAcrossSplitsAndSkipsOtherCapsules() throws {
        let payloads: [[UInt8]] = [Array(repeating: 7, count: 1200), [1, 2, 3], Array(repeating: 9, count: 20000)]
        var stream: [UInt8] = []
        for (index, payload) in payloads.enumerated() {
            stream += payload.withUnsafeBytes { ConnectUDPCapsuleCodec.encode($0) }
            if index == 0 { stream += [0x2A, 0x02, 0xFF, 0xFF] }  // an unknown capsule type
        }
        stream += [0x00, 0x02, 0x01, 0x55]  // context ID 1: not a UDP payload
        XCTAssertEqual(Array(stream.prefix(4)), [0x00, 0x44, 0xB1, 0x00])
        var codec = ConnectUDPCapsuleCodec()
        var decoded: [[UInt8]] = []
        var offset = 0
        var size = 1
        while offset < stream.count {
            let end = min(stream.count, offset + size)
            decoded += try codec.decode(Array(stream[offset..<end]))
            offset = end
            size = size * 3 % 4099 + 1
        }
        XCTAssertEqual(decoded, payloads)
    }

    func testConnectUDPPathFollowsTheURITemplate() {
        XCTAssertEqual(HTTP3RelayConnection.connectUDPPath(to: TunnelTarget(host: "127.0.0.12", port: 4433)),
                       "/.well-known/masque/udp/127.0.0.12/4433/")
        XCTAssertEqual(HTTP3RelayConnection.connectUDPPath(to: TunnelTarget(host: "2001:db8::1", port: 443)),
                       "/.well-known/masque/udp/2001%3Adb8%3A%3A1/443/")
    }
}
