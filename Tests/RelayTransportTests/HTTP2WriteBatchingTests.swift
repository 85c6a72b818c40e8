import XCTest
@testable import RelayTransport

/// What `HTTP2RelayConnection` writes in one turn of the loop leaves in one write: twenty
/// tunnels' requests, or the WINDOW_UPDATEs for twenty tunnels' responses, are one TLS record
/// and one TCP segment, not twenty (each of which the relay forwarded on its own, waiting on
/// delayed ACKs: ~40 ms per request through nghttpx).
final class HTTP2WriteBatchingTests: XCTestCase {
    private let hop = HopDescription(index: 1, endpoint: "relay.test:443", protocolName: "HTTPS, HTTP/2 CONNECT")
    private typealias Tunnel = Connecting<HTTP2ConnectStream>

    /// The loop's end-of-turn queue, run by hand.
    private final class Turn {
        var work: [() -> Void] = []
        func end() {
            while !work.isEmpty {
                let due = work
                work = []
                for item in due { item() }
            }
        }
    }

    private func settle(_ lower: MemoryLayer, _ server: NGHTTP2TestServer, _ turn: Turn) {
        for _ in 0..<1000 {
            turn.end()
            let toServer = lower.takeSent()
            if !toServer.isEmpty { server.receive(toServer) }
            let toUs = server.takeOutput()
            if !toUs.isEmpty { lower.deliver(toUs) }
            turn.end()
            if toServer.isEmpty && toUs.isEmpty && lower.sent.isEmpty { return }
        }
        XCTFail("the in-memory exchange did not settle")
    }

    func testTwentyTunnelsWritesInOneTurnLeaveInOneWrite() throws {
        let server = NGHTTP2TestServer()
        let lower = MemoryLayer(hop: hop)
        let turn = Turn()
        let connection = try HTTP2RelayConnection(over: lower, hop: hop, atEndOfTurn: { turn.work.append($0) })
        connection.start()
        XCTAssertEqual(lower.sendCalls, 0, "nothing is written before the turn ends")
        settle(lower, server, turn)
        let tunnels = (1...20).map { Tunnel(connection.makeStream(authority: "h\($0).origin.test:443", headers: [], nextHop: nil)) }
        let beforeConnects = lower.sendCalls
        turn.end()
        XCTAssertEqual(lower.sendCalls - beforeConnects, 1, "twenty CONNECTs in one turn: one write")
        settle(lower, server, turn)
        let ids = tunnels.map(\.layer.streamID)
        for id in ids { server.answer(id, status: 200) }
        settle(lower, server, turn)
        for tunnel in tunnels { XCTAssertNoThrow(try XCTUnwrap(tunnel.outcome).get()) }

        // Each tunnel's client writes a request in the same turn.
        let beforeRequests = lower.sendCalls
        for (index, tunnel) in tunnels.enumerated() { tunnel.layer.send(Array("request \(index)".utf8)) }
        XCTAssertEqual(lower.sendCalls, beforeRequests, "requests wait for the end of the turn")
        turn.end()
        XCTAssertEqual(lower.sendCalls - beforeRequests, 1, "twenty tunnels' requests: one write")
        settle(lower, server, turn)
        for (index, id) in ids.enumerated() { XCTAssertEqual(server.streams[id]?.data, Array("request \(index)".utf8)) }

        // Twenty answers read in one turn, each answered by its tunnel's client in that turn.
        for (index, id) in ids.enumerated() { server.send(Array("response \(index)".utf8), on: id) }
        let beforeAnswers = lower.sendCalls
        lower.deliver(server.takeOutput())
        for (index, tunnel) in tunnels.enumerated() {
            XCTAssertEqual(tunnel.above.received, Array("response \(index)".utf8))
            tunnel.layer.send(Array("ack \(index)".utf8))
        }
        turn.end()
        XCTAssertEqual(lower.sendCalls - beforeAnswers, 1, "twenty answers to what one read brought: one write")
        settle(lower, server, turn)
    }
}
