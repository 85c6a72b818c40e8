import Foundation
import XCTest
@testable import RelayTransport
import RelayFetchTestSupport

/// How an HTTP/3 first hop fails, against the aioquic relay: a relay that never answers, and an
/// HTTP/3 hop behind a TCP hop (no CONNECT-UDP over TCP yet). Certificate and key-pin checks,
/// the same for QUIC and TCP, are in `TrustPolicyTests`.
/// Every error names hop 1 (or the hop that is not available) and its protocol.
final class HTTP3RelayFailureTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testASilentRelayTimesOutNamingHop1() throws {
        // A bound UDP socket that never answers: no ICMP error, the handshake packets just vanish.
        let (silent, port) = try HTTP3EchoServer.boundSocket(type: SOCK_DGRAM, address: "127.0.0.13")
        defer { close(silent) }
        var relay = HTTP3RelayTests.relay(host: "127.0.0.13")
        relay.port = port
        let session = HTTP3TestChain()
        defer { session.end() }
        let started = Date()
        guard case .failure(let error) = session.tunnel(through: [relay], connectTimeout: 1) else { return XCTFail("a silent relay gave a tunnel") }
        XCTAssertEqual(error.cause, .timeout)
        XCTAssertEqual(error.hop.index, 1)
        XCTAssertEqual(error.hop.protocolName, "QUIC, HTTP/3 CONNECT")
        XCTAssertLessThan(Date().timeIntervalSince(started), 1.5)
    }

    func testAnHTTP3HopBehindAnHTTP2HopIsUnsupported() throws {
        let relayA = RelayEndpoint(host: "127.0.0.11", port: 4433, trust: TLSTrust(caFile: TestServers.caFile),
                                   headerFields: [("Proxy-Authorization", TestServers.relayToken)],
                                   relayProtocol: .http2)
        let session = HTTP3TestChain()
        defer { session.end() }
        guard case .failure(let error) = session.tunnel(through: [relayA, HTTP3ChainTests.relayB()]) else {
            return XCTFail("HTTP/3 behind HTTP/2 gave a tunnel")
        }
        XCTAssertEqual(error.hop.index, 2)
        XCTAssertEqual(error.hop.protocolName, "QUIC, HTTP/3 CONNECT")
        guard case .unsupported(let why) = error.cause else { return XCTFail("\(error)") }
        XCTAssertTrue(why.contains("CONNECT-UDP"), why)
    }
}
