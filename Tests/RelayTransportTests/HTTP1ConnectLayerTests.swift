import XCTest
@testable import RelayTransport

final class HTTP1ConnectLayerTests: XCTestCase {
    private let hop = HopDescription(index: 2, endpoint: "relay.test:443", protocolName: "HTTPS, HTTP/1.1 CONNECT")

    func testHeadersGoOnTheConnectOnlyThenBytesPassThrough() {
        let lower = MemoryLayer(), above = Collector()
        let layer = HTTP1ConnectLayer(over: lower, targetHost: "origin.test", targetPort: 443,
                                      headers: [("Proxy-Authorization", "Bearer secret")], hop: hop)
        layer.delegate = above
        var outcome: Result<Void, RelayError>?
        layer.connect { outcome = $0 }
        XCTAssertEqual(String(decoding: lower.sent, as: UTF8.self),
                       "CONNECT origin.test:443 HTTP/1.1\r\nHost: origin.test:443\r\nProxy-Authorization: Bearer secret\r\n\r\n")
        XCTAssertNil(outcome)
        lower.deliver("HTTP/1.1 200 OK\r\n\r\nhello")
        guard case .success = outcome else { return XCTFail("tunnel should be open") }
        XCTAssertEqual(above.received, Array("hello".utf8))

        lower.sent = []
        layer.send(Array("GET / HTTP/1.1\r\n\r\n".utf8))
        XCTAssertEqual(lower.sent, Array("GET / HTTP/1.1\r\n\r\n".utf8), "after the CONNECT, no hop header is ever added")
        lower.deliver("more")
        XCTAssertEqual(above.received, Array("hellomore".utf8))
    }

    func testRefusalIsATypedErrorNamingTheHop() {
        let lower = MemoryLayer()
        let layer = HTTP1ConnectLayer(over: lower, targetHost: "origin.test", targetPort: 443, headers: [], hop: hop)
        var outcome: Result<Void, RelayError>?
        layer.connect { outcome = $0 }
        lower.deliver("HTTP/1.1 403 Forbidden\r\n\r\n")
        guard case .failure(let error) = outcome else { return XCTFail() }
        XCTAssertEqual(error.hop.index, 2)
        XCTAssertEqual(error.cause, .tunnelRefused(status: 403, reason: "Forbidden"))
        XCTAssertEqual(error.description, "hop 2 (relay.test:443, HTTPS, HTTP/1.1 CONNECT): relay refused the tunnel: 403 Forbidden (forbidden by the relay)")
        XCTAssertTrue(lower.closed)
    }

    func testCloseBeforeTheAnswerIsAnError() {
        let lower = MemoryLayer()
        let layer = HTTP1ConnectLayer(over: lower, targetHost: "origin.test", targetPort: 443, headers: [], hop: hop)
        var outcome: Result<Void, RelayError>?
        layer.connect { outcome = $0 }
        layer.layerDidReceiveEOF()
        guard case .failure(let error) = outcome else { return XCTFail() }
        XCTAssertEqual(error.cause, .closedDuringSetup)
    }
}
