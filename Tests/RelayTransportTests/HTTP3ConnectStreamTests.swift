import XCTest
@testable import RelayTransport

/// `HTTP3RelayConnection` and `HTTP3ConnectStream` over QUIC streams in memory (`MemoryQUIC`),
/// against a real nghttp3 server connection in-process (`NGHTTP3TestServer`): no packets, no
/// socket, no relay. QUIC itself is proven end to end in HTTP3RelayTests.
final class HTTP3ConnectStreamTests: XCTestCase {
    private let hop = HopDescription(index: 1, endpoint: "relay.test:443", protocolName: "QUIC, HTTP/3 CONNECT")
    private let nextHop = HopDescription(index: 2, endpoint: "relay2.test:443", protocolName: "QUIC, HTTP/3 CONNECT")

    private final class Harness {
        let server: NGHTTP3TestServer
        let quic: MemoryQUIC
        let connection: HTTP3RelayConnection

        init(hop: HopDescription, server: NGHTTP3TestServer = NGHTTP3TestServer(), streamLimit: Int = 100,
             sendWindow: Int = 1 << 30, receiveWindow: Int = 1 << 20) throws {
            self.server = server
            quic = MemoryQUIC(server: server, streamLimit: streamLimit, sendWindow: sendWindow, receiveWindow: receiveWindow)
            connection = HTTP3RelayConnection(quic: quic, hop: hop)
            var outcome: Result<Void, RelayError>?
            connection.connect { outcome = $0 }
            try XCTUnwrap(outcome).get()
            XCTAssertTrue(connection.isUsable)
        }
    }

    private typealias Tunnel = Connecting<HTTP3ConnectStream>

    private func open(_ harness: Harness, authority: String = "origin.test:443", headers: [(String, String)] = [],
                      nextHop: HopDescription? = nil) -> Tunnel {
        let tunnel = Tunnel(harness.connection.makeStream(authority: authority, headers: headers, nextHop: nextHop))
        harness.quic.flush()
        return tunnel
    }

    private func openTunnel(_ harness: Harness, authority: String = "origin.test:443") throws -> Tunnel {
        let tunnel = open(harness, authority: authority)
        harness.server.answer(tunnel.layer.streamID, status: 200)
        harness.quic.flush()
        try XCTUnwrap(tunnel.outcome).get()
        return tunnel
    }

    func testTheConnectCarriesOnlyTheHopsFieldsAnd200OpensTheTunnel() throws {
        let harness = try Harness(hop: hop)
        let tunnel = open(harness, headers: [("Proxy-Authorization", "Bearer secret")])
        XCTAssertEqual(tunnel.layer.streamID, 0)
        XCTAssertEqual(harness.server.fields(0), [":method: CONNECT", ":authority: origin.test:443", "proxy-authorization: Bearer secret"])
        XCTAssertNil(tunnel.outcome, "open only once the relay answers")

        harness.server.answer(0, status: 200)
        harness.quic.flush()
        XCTAssertNoThrow(try XCTUnwrap(tunnel.outcome).get())
        tunnel.layer.send(Array("GET / HTTP/1.1\r\n\r\n".utf8))
        harness.server.send(Array("HTTP/1.1 200 OK\r\n\r\n".utf8), on: 0)
        harness.quic.flush()
        XCTAssertEqual(harness.server.streams[0]?.data, Array("GET / HTTP/1.1\r\n\r\n".utf8))
        XCTAssertEqual(tunnel.above.received, Array("HTTP/1.1 200 OK\r\n\r\n".utf8))
    }

    func testRefusalsNameTheStatusAndTheHopAndResetTheStream() throws {
        for status in [403, 407] {
            let harness = try Harness(hop: hop)
            let tunnel = open(harness)
            harness.server.answer(0, status: status)
            harness.quic.flush()
            guard case .failure(let error)? = tunnel.outcome else { return XCTFail("\(status) opened a tunnel") }
            XCTAssertEqual(error.hop, hop)
            let reason = status == 403 ? "Forbidden" : "Proxy Authentication Required"
            XCTAssertEqual(error.cause, .tunnelRefused(status: status, reason: reason))
            XCTAssertEqual(harness.quic.abortedByUs[0], HTTP3ErrorCode.requestCancelled)
        }
    }

    func testA503ToTheNextRelayNamesThatRelay() throws {
        let harness = try Harness(hop: hop)
        let tunnel = open(harness, authority: "relay2.test:443", nextHop: nextHop)
        harness.server.answer(0, status: 503)
        harness.quic.flush()
        guard case .failure(let error)? = tunnel.outcome else { return XCTFail("503 opened a tunnel") }
        XCTAssertEqual(error.hop, nextHop)
        XCTAssertEqual(error.cause, .unreachable(via: 1, status: 503, reason: "Service Unavailable"))
    }

    func testTheRelayEndingItsSideIsTheTunnelsEnd() throws {
        let harness = try Harness(hop: hop)
        let tunnel = try openTunnel(harness)
        harness.server.send(Array("bye".utf8), on: 0)
        harness.server.finish(0)
        harness.quic.flush()
        XCTAssertEqual(tunnel.above.received, Array("bye".utf8))
        XCTAssertTrue(tunnel.above.ended)
        XCTAssertNil(tunnel.above.error)
        tunnel.layer.send(Array("we may still send".utf8))
        harness.quic.flush()
        XCTAssertEqual(harness.server.streams[0]?.data, Array("we may still send".utf8))
    }

    func testARelayResetMidTunnelFailsItNamingTheCode() throws {
        let harness = try Harness(hop: hop)
        let tunnel = try openTunnel(harness)
        harness.quic.relayResets(0, code: 0x10f)
        XCTAssertEqual(tunnel.above.error?.hop, hop)
        XCTAssertEqual(tunnel.above.error?.cause, .protocolError("relay reset the tunnel: H3_CONNECT_ERROR 0x10f"))
        XCTAssertEqual(harness.quic.abortedByUs[0], HTTP3ErrorCode.requestCancelled, "we reset our side too")
        XCTAssertTrue(harness.connection.isUsable)
    }

    func testOurCloseResetsTheStreamOnlyAndTheLastOneMakesTheConnectionIdle() throws {
        let harness = try Harness(hop: hop)
        let first = try openTunnel(harness)
        let second = try openTunnel(harness, authority: "origin2.test:443")
        XCTAssertEqual(second.layer.streamID, 4)
        var idle = false
        harness.connection.onIdle = { idle = true }
        first.layer.close()
        harness.quic.flush()
        XCTAssertEqual(harness.quic.abortedByUs[0], HTTP3ErrorCode.requestCancelled)
        XCTAssertEqual(harness.server.streams[0]?.closeCode, HTTP3ErrorCode.requestCancelled)
        XCTAssertFalse(idle)
        second.layer.send(Array("still here".utf8))
        harness.quic.flush()
        XCTAssertEqual(harness.server.streams[4]?.data, Array("still here".utf8))
        second.layer.close()
        harness.quic.flush()
        XCTAssertTrue(idle)
        XCTAssertNil(first.above.error)
        XCTAssertFalse(first.above.ended, "what the layer above closed tells it nothing more")
    }

    func testSeveralTunnelsShareTheConnectionAndKeepTheirBytesApart() throws {
        let harness = try Harness(hop: hop)
        let tunnels = try (0..<3).map { try openTunnel(harness, authority: "origin\($0).test:443") }
        XCTAssertEqual(tunnels.map(\.layer.streamID), [0, 4, 8])
        for (index, tunnel) in tunnels.enumerated() {
            tunnel.layer.send(Array("up \(index)".utf8))
            harness.server.send(Array("down \(index)".utf8), on: tunnel.layer.streamID)
        }
        harness.quic.flush()
        for (index, tunnel) in tunnels.enumerated() {
            XCTAssertEqual(harness.server.fields(tunnel.layer.streamID)[1], ":authority: origin\(index).test:443")
            XCTAssertEqual(harness.server.streams[tunnel.layer.streamID]?.data, Array("up \(index)".utf8))
            XCTAssertEqual(tunnel.above.received, Array("down \(index)".utf8))
        }
    }

    func testAStreamOverTheRelaysLimitWaitsForMoreStreams() throws {
        let harness = try Harness(hop: hop, streamLimit: 1)
        let first = try openTunnel(harness)
        let waiting = open(harness, authority: "origin2.test:443")
        XCTAssertEqual(waiting.layer.streamID, -1, "no stream ID while the relay allows no more")
        XCTAssertNil(waiting.outcome)
        XCTAssertEqual(harness.connection.activeStreams, 2)
        harness.quic.allowStreams(1)
        XCTAssertEqual(waiting.layer.streamID, 4)
        harness.server.answer(4, status: 200)
        harness.quic.flush()
        XCTAssertNoThrow(try XCTUnwrap(waiting.outcome).get())
        XCTAssertNil(first.above.error)
    }

    func testGoAwayRefusesNewTunnelsAndLetsOpenOnesFinish() throws {
        let harness = try Harness(hop: hop)
        let open = try openTunnel(harness)
        harness.server.goAway()
        harness.quic.flush()
        XCTAssertFalse(harness.connection.isUsable)
        let refused = self.open(harness, authority: "origin2.test:443")
        guard case .failure(let error)? = refused.outcome else { return XCTFail("a draining connection took a new stream") }
        XCTAssertEqual(error.cause, .protocolError("the HTTP/3 connection cannot take new streams"))
        open.layer.send(Array("finishing".utf8))
        harness.quic.flush()
        XCTAssertEqual(harness.server.streams[0]?.data, Array("finishing".utf8))
        XCTAssertNil(open.above.error)
    }

    func testAClosedWindowStopsUsSendingAndMoreCreditResumes() throws {
        let harness = try Harness(hop: hop, sendWindow: 100)
        let tunnel = try openTunnel(harness)
        let sent = harness.server.streams[0]?.data.count ?? 0  // the request's HEADERS frame counts too
        let upload = (0..<1000).map { UInt8(truncatingIfNeeded: $0) }
        tunnel.layer.send(upload)
        harness.quic.flush()
        let received = harness.server.streams[0]?.data ?? []
        XCTAssertLessThan(received.count, upload.count, "the window holds the rest back (\(sent) + \(received.count))")
        XCTAssertEqual(received, Array(upload.prefix(received.count)))
        harness.quic.openSendWindow(0, by: 10_000)
        XCTAssertBytesEqual(harness.server.streams[0]?.data, upload, "more credit lets the rest go, in order")
    }

    func testAPausedReaderGivesNoCreditSoTheRelayStopsAtTheWindow() throws {
        let window = 64 * 1024
        let harness = try Harness(hop: hop, receiveWindow: window)
        let tunnel = try openTunnel(harness)
        tunnel.layer.setReadingPaused(true)
        let download = (0..<(window * 4)).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        harness.server.send(download, on: 0)
        harness.quic.flush()
        let first = tunnel.above.received.count
        XCTAssertGreaterThan(first, window / 2)
        XCTAssertLessThanOrEqual(first, window, "the relay stops at the window (frame headers are credited at once, tunnel bytes as read)")
        harness.quic.flush()
        XCTAssertEqual(tunnel.above.received.count, first, "nothing more while paused")

        tunnel.layer.setReadingPaused(false)
        harness.quic.flush()
        XCTAssertBytesEqual(tunnel.above.received, download, "resuming gives the credit back")
    }

    func testALostConnectionFailsEveryTunnelWithItsError() throws {
        let harness = try Harness(hop: hop)
        let tunnels = try (0..<2).map { try openTunnel(harness, authority: "origin\($0).test:443") }
        var closed = false
        harness.connection.onClose = { closed = true }
        harness.quic.fail(RelayError(hop: hop, cause: .timeout))
        for tunnel in tunnels {
            XCTAssertEqual(tunnel.above.error?.hop, hop)
            XCTAssertEqual(tunnel.above.error?.cause, .timeout)
        }
        XCTAssertTrue(closed)
        XCTAssertFalse(harness.connection.isUsable)
    }

    func testConnectUDPIsAnExtendedConnectTheRelayAccepts() throws {
        let harness = try Harness(hop: hop, server: NGHTTP3TestServer(connectProtocol: true))
        let relay = RelayEndpoint(host: "relay.test", port: 443, headerFields: [("Proxy-Authorization", "Bearer t")])
        let tunnel = Tunnel(harness.connection.makeUDPStream(relay: relay, target: TunnelTarget(host: "relay2.test", port: 443), nextHop: nextHop))
        harness.quic.flush()
        XCTAssertEqual(harness.server.fields(0), [":method: CONNECT", ":protocol: connect-udp", ":scheme: https", ":authority: relay.test:443",
                                                  ":path: /.well-known/masque/udp/relay2.test/443/", "proxy-authorization: Bearer t",
                                                  "capsule-protocol: ?1"])
        harness.server.answer(0, status: 200, fields: [("capsule-protocol", "?1")])
        harness.quic.flush()
        XCTAssertNoThrow(try XCTUnwrap(tunnel.outcome).get())
    }
}
