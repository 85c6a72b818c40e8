import CNghttp2
import XCTest
@testable import RelayTransport

/// `HTTP2RelayConnection` and `HTTP2ConnectStream` over an in-memory byte stream, against a real
/// nghttp2 server session run in-process (`NGHTTP2TestServer`): no socket, no relay.
final class HTTP2ConnectStreamTests: XCTestCase {
    private let hop = HopDescription(index: 1, endpoint: "relay.test:443", protocolName: "HTTPS, HTTP/2 CONNECT")
    private let nextHop = HopDescription(index: 2, endpoint: "relay2.test:443", protocolName: "HTTPS, HTTP/2 CONNECT")

    private final class Harness {
        let lower: MemoryLayer
        let connection: HTTP2RelayConnection
        let server: NGHTTP2TestServer

        init(hop: HopDescription, server: NGHTTP2TestServer) throws {
            lower = MemoryLayer(hop: hop)
            connection = try HTTP2RelayConnection(over: lower, hop: hop, atEndOfTurn: { $0() })
            self.server = server
            connection.start()
            pump()
        }

        func pump() { RelayTransportTests.pump(lower, server) }
    }

    private typealias Tunnel = Connecting<HTTP2ConnectStream>

    /// Sends a CONNECT to `authority` (nothing answered yet).
    private func open(_ harness: Harness, authority: String = "origin.test:443", headers: [(String, String)] = [],
                      nextHop: HopDescription? = nil) -> Tunnel {
        let tunnel = Tunnel(harness.connection.makeStream(authority: authority, headers: headers, nextHop: nextHop))
        harness.pump()
        return tunnel
    }

    /// A tunnel the server answered 200.
    private func openTunnel(_ harness: Harness, authority: String = "origin.test:443") throws -> Tunnel {
        let tunnel = open(harness, authority: authority)
        harness.server.answer(tunnel.layer.streamID, status: 200)
        harness.pump()
        try XCTUnwrap(tunnel.outcome).get()
        return tunnel
    }

    func testTheConnectCarriesOnlyTheHopsFieldsAnd200OpensTheTunnel() throws {
        let harness = try Harness(hop: hop, server: NGHTTP2TestServer())
        let tunnel = open(harness, headers: [("Proxy-Authorization", "Bearer secret")])
        XCTAssertEqual(tunnel.layer.streamID, 1)
        XCTAssertEqual(harness.server.fields(1), [":method: CONNECT", ":authority: origin.test:443", "proxy-authorization: Bearer secret"],
                       "no :scheme or :path, and no field but the hop's")
        XCTAssertNil(tunnel.outcome, "open only once the relay answers")

        harness.server.answer(1, status: 200, fields: [("alt-svc", "h3=\":4433\"")])
        harness.pump()
        XCTAssertNoThrow(try XCTUnwrap(tunnel.outcome).get())
        XCTAssertEqual(tunnel.layer.altSvc, "h3=\":4433\"")

        tunnel.layer.send(Array("GET / HTTP/1.1\r\n\r\n".utf8))
        harness.pump()
        XCTAssertEqual(harness.server.streams[1]?.data, Array("GET / HTTP/1.1\r\n\r\n".utf8))
        harness.server.send(Array("HTTP/1.1 200 OK\r\n\r\n".utf8), on: 1)
        harness.pump()
        XCTAssertEqual(tunnel.above.received, Array("HTTP/1.1 200 OK\r\n\r\n".utf8))
    }

    func testRefusalsNameTheStatusAndTheHop() throws {
        for status in [403, 407] {
            let harness = try Harness(hop: hop, server: NGHTTP2TestServer())
            let tunnel = open(harness)
            harness.server.answer(1, status: status)
            harness.pump()
            guard case .failure(let error)? = tunnel.outcome else { return XCTFail("\(status) opened a tunnel") }
            XCTAssertEqual(error.hop, hop)
            let reason = status == 403 ? "Forbidden" : "Proxy Authentication Required"
            XCTAssertEqual(error.cause, .tunnelRefused(status: status, reason: reason))
            XCTAssertTrue(error.description.contains("relay refused the tunnel: \(status) \(reason)"), error.description)
        }
    }

    func testA502ToTheNextRelayNamesThatRelay() throws {
        let harness = try Harness(hop: hop, server: NGHTTP2TestServer())
        let tunnel = open(harness, authority: "relay2.test:443", nextHop: nextHop)
        harness.server.answer(1, status: 502)
        harness.pump()
        guard case .failure(let error)? = tunnel.outcome else { return XCTFail("502 opened a tunnel") }
        XCTAssertEqual(error.hop, nextHop)
        XCTAssertEqual(error.cause, .unreachable(via: 1, status: 502, reason: "Bad Gateway"))
    }

    func testTheRelayEndingItsSideIsTheTunnelsEnd() throws {
        let harness = try Harness(hop: hop, server: NGHTTP2TestServer())
        let tunnel = try openTunnel(harness)
        harness.server.send(Array("bye".utf8), on: 1)
        harness.server.finish(1)
        harness.pump()
        XCTAssertEqual(tunnel.above.received, Array("bye".utf8))
        XCTAssertTrue(tunnel.above.ended, "END_STREAM from the relay ends the tunnel")
        XCTAssertNil(tunnel.above.error)
    }

    func testRSTStreamMidTunnelFailsItNamingTheCode() throws {
        let harness = try Harness(hop: hop, server: NGHTTP2TestServer())
        let tunnel = try openTunnel(harness)
        harness.server.reset(1, code: NGHTTP2_CONNECT_ERROR)
        harness.pump()
        XCTAssertEqual(tunnel.above.error?.hop, hop)
        XCTAssertEqual(tunnel.above.error?.cause, .protocolError("relay reset the tunnel: CONNECT_ERROR 0xa"))
        XCTAssertTrue(harness.connection.isUsable, "a reset ends one stream, not the connection")
    }

    func testOurCloseResetsTheStreamOnly() throws {
        let harness = try Harness(hop: hop, server: NGHTTP2TestServer())
        let first = try openTunnel(harness)
        let second = try openTunnel(harness, authority: "origin2.test:443")
        XCTAssertEqual(second.layer.streamID, 3)
        var idle = false
        harness.connection.onIdle = { idle = true }
        first.layer.close()
        harness.pump()
        XCTAssertEqual(harness.server.streams[1]?.closeCode, NGHTTP2_CANCEL.rawValue)
        XCTAssertFalse(idle)
        second.layer.send(Array("still here".utf8))
        harness.pump()
        XCTAssertEqual(harness.server.streams[3]?.data, Array("still here".utf8))
        second.layer.close()
        harness.pump()
        XCTAssertTrue(idle, "the last tunnel's end makes the connection idle")
        XCTAssertNil(first.above.error)
        XCTAssertFalse(first.above.ended, "what the layer above closed tells it nothing more")
    }

    func testSeveralTunnelsShareTheConnectionAndKeepTheirBytesApart() throws {
        let harness = try Harness(hop: hop, server: NGHTTP2TestServer())
        let tunnels = try (0..<3).map { try openTunnel(harness, authority: "origin\($0).test:443") }
        XCTAssertEqual(tunnels.map(\.layer.streamID), [1, 3, 5])
        XCTAssertEqual(harness.connection.activeStreams, 3)
        for (index, tunnel) in tunnels.enumerated() {
            tunnel.layer.send(Array("up \(index)".utf8))
            harness.server.send(Array("down \(index)".utf8), on: tunnel.layer.streamID)
        }
        harness.pump()
        for (index, tunnel) in tunnels.enumerated() {
            XCTAssertEqual(harness.server.fields(tunnel.layer.streamID)[1], ":authority: origin\(index).test:443")
            XCTAssertEqual(harness.server.streams[tunnel.layer.streamID]?.data, Array("up \(index)".utf8))
            XCTAssertEqual(tunnel.above.received, Array("down \(index)".utf8))
        }
    }

    func testGoAwayLetsOpenTunnelsFinishRefusesNewOnesAndFailsLaterStreams() throws {
        let harness = try Harness(hop: hop, server: NGHTTP2TestServer())
        let open = try openTunnel(harness)
        let pending = self.open(harness, authority: "origin2.test:443")
        XCTAssertEqual(pending.layer.streamID, 3)
        harness.server.goAway(lastStreamID: 1)
        harness.pump()
        XCTAssertFalse(harness.connection.isUsable)
        guard case .failure(let error)? = pending.outcome else { return XCTFail("a stream after GOAWAY's last one went on") }
        XCTAssertEqual(error.cause, .protocolError("relay sent GOAWAY (NO_ERROR 0x0) before the stream started"))

        let refused = self.open(harness, authority: "origin3.test:443")
        guard case .failure(let late)? = refused.outcome else { return XCTFail("a draining connection took a new stream") }
        XCTAssertEqual(late.cause, .protocolError("the HTTP/2 connection cannot take new streams"))

        open.layer.send(Array("finishing".utf8))
        harness.pump()
        XCTAssertEqual(harness.server.streams[1]?.data, Array("finishing".utf8), "the stream GOAWAY covers goes on")
        XCTAssertNil(open.above.error)

        harness.lower.deliverEOF()
        XCTAssertEqual(open.above.error?.hop, hop)
        XCTAssertEqual(open.above.error?.cause, .protocolError("relay closed the HTTP/2 connection"))
    }

    func testAClosedWindowStopsUsSendingAndWindowUpdateResumes() throws {
        let harness = try Harness(hop: hop, server: NGHTTP2TestServer(initialWindow: 100, manualWindow: true))
        let tunnel = try openTunnel(harness)
        let upload = (0..<1000).map { UInt8(truncatingIfNeeded: $0) }
        tunnel.layer.send(upload)
        harness.pump()
        XCTAssertEqual(harness.server.streams[1]?.data, Array(upload.prefix(100)), "no more than the window")
        harness.pump()
        XCTAssertEqual(harness.server.streams[1]?.data.count, 100, "nothing more while the window stays closed")

        harness.server.openWindow(1, by: 400)
        harness.pump()
        XCTAssertEqual(harness.server.streams[1]?.data, Array(upload.prefix(500)))
        harness.server.openWindow(1, by: 10_000)
        harness.pump()
        XCTAssertBytesEqual(harness.server.streams[1]?.data, upload)
    }

    func testAPausedReaderHoldsTheRelayAtTheStreamWindow() throws {
        let harness = try Harness(hop: hop, server: NGHTTP2TestServer())
        let tunnel = try openTunnel(harness)
        tunnel.layer.setReadingPaused(true)
        let window = Int(HTTP2RelayConnection.streamWindow)
        let download = (0..<(window + 1_000_000)).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        harness.server.send(download, on: 1)
        harness.pump()
        XCTAssertEqual(tunnel.above.received.count, window, "no WINDOW_UPDATE while paused: the relay stops at the window")
        XCTAssertEqual(harness.server.unsent(1), 1_000_000)

        tunnel.layer.setReadingPaused(false)
        harness.pump()
        XCTAssertEqual(harness.server.unsent(1), 0, "resuming gives the window back")
        XCTAssertBytesEqual(tunnel.above.received, download)
    }

    func testFramesArrivingOneByteAtATime() throws {
        let server = NGHTTP2TestServer()
        let lower = MemoryLayer(hop: hop)
        let connection = try HTTP2RelayConnection(over: lower, hop: hop, atEndOfTurn: { $0() })
        connection.start()
        let tunnel = Tunnel(connection.makeStream(authority: "origin.test:443", headers: [], nextHop: nil))
        pump(lower, server, chunk: 1)
        server.answer(1, status: 200)
        server.send(Array("one byte at a time".utf8), on: 1)
        pump(lower, server, chunk: 1)
        XCTAssertNoThrow(try XCTUnwrap(tunnel.outcome).get())
        XCTAssertEqual(tunnel.above.received, Array("one byte at a time".utf8))
    }

    func testPingsAreAnsweredAndFailWithTheConnection() throws {
        let harness = try Harness(hop: hop, server: NGHTTP2TestServer())
        var answers: [Bool] = []
        harness.connection.ping { answers.append($0) }
        harness.connection.ping { answers.append($0) }  // joins the PING in flight
        harness.pump()
        XCTAssertEqual(answers, [true, true], "the relay's ACK answers both probes")

        let cancelled = harness.connection.ping { answers.append($0) }
        harness.connection.cancelPing(cancelled)
        XCTAssertEqual(answers.last, false)
        harness.connection.ping { answers.append($0) }
        harness.lower.deliverEOF()
        XCTAssertEqual(answers, [true, true, false, false], "a PING the dead connection never answered fails")
    }

    func testAConnectionErrorFailsEveryTunnelNamingTheHop() throws {
        let harness = try Harness(hop: hop, server: NGHTTP2TestServer())
        let tunnels = try (0..<2).map { try openTunnel(harness, authority: "origin\($0).test:443") }
        harness.lower.deliver(Array(repeating: 0xff, count: 32))  // not a frame: nghttp2 ends the connection
        for tunnel in tunnels {
            XCTAssertEqual(tunnel.above.error?.hop, hop)
            guard case .protocolError(let why)? = tunnel.above.error?.cause else { return XCTFail("\(String(describing: tunnel.above.error))") }
            XCTAssertTrue(why.hasPrefix("HTTP/2"), why)
        }
        XCTAssertTrue(harness.lower.closed)
    }
}
