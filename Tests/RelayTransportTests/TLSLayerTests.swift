import XCTest
@testable import RelayTransport
import RelayFetchTestSupport

/// `TLSLayer` alone, over an in-memory byte stream, against a real OpenSSL server run in-process
/// (`OpenSSLTestServer`, the test CA's relay certificate): no socket, no relay.
final class TLSLayerTests: XCTestCase {
    private let hop = HopDescription(index: 1, endpoint: "relay.test:443", protocolName: "HTTPS, HTTP/2 CONNECT")
    private var caTrust: TLSTrust { TLSTrust(caFile: OpenSSLTestServer.pki.appendingPathComponent("ca.pem").path) }

    private struct Pair {
        let lower: MemoryLayer
        let tls: TLSLayer
        let above: Collector
        let server: OpenSSLTestServer
    }

    private func pair(trust: TLSTrust? = nil, serverName: String = "relay.test", alpn: [String] = ["h2", "http/1.1"]) throws -> Pair {
        let lower = MemoryLayer(hop: hop)
        let tls = try TLSLayer(over: lower, context: TLSContext(trust: trust ?? caTrust), serverName: serverName, alpn: alpn, hop: hop)
        let above = Collector()
        tls.delegate = above
        return Pair(lower: lower, tls: tls, above: above, server: try OpenSSLTestServer())
    }

    /// Runs the handshake; returns its outcome (nil: it never completed).
    private func handshake(_ pair: Pair, chunk: Int? = nil) -> Result<Void, RelayError>? {
        var outcome: Result<Void, RelayError>?
        pair.tls.connect { outcome = $0 }
        pump(pair.lower, pair.server, chunk: chunk)
        return outcome
    }

    func testHandshakeNegotiatesALPNAndCarriesBytesBothWays() throws {
        let pair = try pair()
        XCTAssertNoThrow(try handshake(pair)?.get())
        XCTAssertTrue(pair.server.handshakeDone)
        XCTAssertEqual(pair.tls.negotiatedALPN, "h2")
        XCTAssertEqual(pair.server.selectedALPN, "h2")

        pair.tls.send(Array("PRI * HTTP/2.0".utf8))
        XCTAssertFalse(pair.lower.sent.isEmpty)
        XCTAssertNil(pair.lower.sent.firstRange(of: Array("PRI".utf8)), "what goes below is encrypted")
        pump(pair.lower, pair.server)
        XCTAssertEqual(pair.server.received, Array("PRI * HTTP/2.0".utf8))

        pair.server.send(Array("hello from the relay".utf8))
        pump(pair.lower, pair.server)
        XCTAssertEqual(pair.above.received, Array("hello from the relay".utf8))
        XCTAssertNil(pair.above.error)
    }

    func testALargeWriteIsSplitIntoRecordsAndArrivesWhole() throws {
        let pair = try pair()
        XCTAssertNoThrow(try handshake(pair)?.get())
        let upload = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        pair.tls.send(upload)
        pump(pair.lower, pair.server)
        XCTAssertBytesEqual(pair.server.received, upload)
        XCTAssertGreaterThanOrEqual(pair.server.applicationRecords, 13, "at most 16 KiB of plaintext per record")

        let download = (0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        pair.server.send(download)
        pump(pair.lower, pair.server)
        XCTAssertBytesEqual(pair.above.received, download)
        XCTAssertLessThanOrEqual(pair.above.deliveries, 8, "records are gathered into large deliveries, not passed up one by one")
    }

    func testBytesArrivingOneAtATime() throws {
        let pair = try pair()
        XCTAssertNoThrow(try handshake(pair, chunk: 1)?.get(), "the handshake, a byte per delivery")
        pair.server.send(Array("slowly".utf8))
        pump(pair.lower, pair.server, chunk: 1)
        XCTAssertEqual(pair.above.received, Array("slowly".utf8))
        pair.tls.send(Array("and back".utf8))
        pump(pair.lower, pair.server, chunk: 1)
        XCTAssertEqual(pair.server.received, Array("and back".utf8))
    }

    func testCloseNotifyIsACleanEnd() throws {
        let pair = try pair()
        XCTAssertNoThrow(try handshake(pair)?.get())
        pair.server.send(Array("last words".utf8))
        pair.server.closeNotify()
        pump(pair.lower, pair.server)
        pair.lower.deliverEOF()
        XCTAssertEqual(pair.above.received, Array("last words".utf8))
        XCTAssertTrue(pair.above.ended)
        XCTAssertNil(pair.above.error, "close_notify, then the stream's end: clean")
    }

    func testAnEndWithoutCloseNotifyIsATruncationOfThisHop() throws {
        let pair = try pair()
        XCTAssertNoThrow(try handshake(pair)?.get())
        pair.server.send(Array("partial".utf8))
        pump(pair.lower, pair.server)
        pair.lower.deliverEOF()
        XCTAssertEqual(pair.above.received, Array("partial".utf8))
        XCTAssertFalse(pair.above.ended)
        XCTAssertEqual(pair.above.error?.hop, hop)
        XCTAssertEqual(pair.above.error?.cause, .tunnelEndedEarly("the connection ended without a TLS close_notify"))
    }

    func testOurCloseSendsCloseNotifyAndClosesBelow() throws {
        let pair = try pair()
        XCTAssertNoThrow(try handshake(pair)?.get())
        pair.tls.close()
        XCTAssertTrue(pair.lower.closed)
        pump(pair.lower, pair.server)
        XCTAssertTrue(pair.server.sawCloseNotify)
    }

    func testAnEndDuringTheHandshakeFailsIt() throws {
        let pair = try pair()
        var outcome: Result<Void, RelayError>?
        pair.tls.connect { outcome = $0 }
        pair.lower.deliverEOF()
        guard case .failure(let error)? = outcome else { return XCTFail("expected a failure, got \(String(describing: outcome))") }
        XCTAssertEqual(error.cause, .tls("connection closed by peer during handshake"))
        XCTAssertTrue(pair.lower.closed)
    }

    func testACertificateFromAnotherCAIsRefusedNamingTheHop() throws {
        // The origin's certificate as the only anchor: the relay's chain does not lead to it.
        let pair = try pair(trust: TLSTrust(caFile: OpenSSLTestServer.pki.appendingPathComponent("origin.pem").path))
        guard case .failure(let error)? = handshake(pair) else { return XCTFail("an untrusted certificate was accepted") }
        XCTAssertEqual(error.hop, hop)
        guard case .tls(let reason) = error.cause else { return XCTFail("\(error)") }
        XCTAssertTrue(reason.hasPrefix("certificate verify failed: unable to get local issuer certificate"), reason)
        XCTAssertTrue(pair.lower.closed)
        XCTAssertFalse(pair.server.handshakeDone)
    }

    func testAnotherNameIsRefused() throws {
        let pair = try pair(serverName: "other.test")
        guard case .failure(let error)? = handshake(pair), case .tls(let reason) = error.cause else {
            return XCTFail("a certificate for relay.test was accepted for other.test")
        }
        XCTAssertTrue(reason.contains("hostname mismatch"), reason)
    }

    func testPinsReplaceTheChainCheck() throws {
        let pin = Array(try TestServers.relayPublicKeySHA256())
        let pinned = try pair(trust: TLSTrust(pinnedPublicKeys: [pin]))
        XCTAssertNoThrow(try handshake(pinned)?.get(), "the right pin, no CA")

        let wrong = try pair(trust: TLSTrust(pinnedPublicKeys: [[UInt8](repeating: 7, count: 32)]))
        guard case .failure(let error)? = handshake(wrong) else { return XCTFail("a key matching no pin was accepted") }
        XCTAssertEqual(error.hop, hop)
        XCTAssertEqual(error.cause, .publicKeyPinMismatch)
        XCTAssertTrue(wrong.lower.closed)
        wrong.tls.send(Array("secret".utf8))
        XCTAssertTrue(wrong.lower.sent.isEmpty, "nothing is sent to a refused relay")
    }

    func testPausedReadingHoldsBytesBackAndResumingDeliversThem() throws {
        let pair = try pair()
        XCTAssertNoThrow(try handshake(pair)?.get())
        pair.tls.setReadingPaused(true)
        XCTAssertTrue(pair.lower.paused, "the pause reaches the layer below")
        pair.server.send(Array("wait".utf8))
        pair.server.closeNotify()
        pump(pair.lower, pair.server)
        XCTAssertTrue(pair.above.received.isEmpty)
        XCTAssertFalse(pair.above.ended)
        pair.tls.setReadingPaused(false)
        XCTAssertEqual(pair.above.received, Array("wait".utf8))
        XCTAssertTrue(pair.above.ended)
    }
}

/// `TLSClientConnection` (DNS over TLS uses it) over the same in-memory stream and server.
final class TLSClientConnectionTests: XCTestCase {
    private let hop = HopDescription(index: 0, endpoint: "127.0.0.11:853", protocolName: "DNS over TLS")

    private func connection() throws -> (MemoryLayer, TLSClientConnection, OpenSSLTestServer) {
        let lower = MemoryLayer(hop: hop)
        let trust = TLSTrust(caFile: OpenSSLTestServer.pki.appendingPathComponent("ca.pem").path)
        let client = try TLSClientConnection(over: lower, serverName: "relay.test", trust: trust, alpn: ["dot"], description: hop)
        return (lower, client, try OpenSSLTestServer())
    }

    func testItConnectsCarriesBytesAndEndsCleanlyOnCloseNotify() throws {
        let (lower, client, server) = try connection()
        var received: [UInt8] = []
        var ends: [RelayError?] = []
        client.onReceive = { received += $0 }
        client.onEnd = { ends.append($0) }
        var outcome: Result<Void, RelayError>?
        client.connect { outcome = $0 }
        pump(lower, server)
        XCTAssertNoThrow(try XCTUnwrap(outcome).get())
        XCTAssertEqual(client.negotiatedALPN, "dot")

        client.send(Array("query".utf8))
        server.send(Array("answer".utf8))
        server.closeNotify()
        pump(lower, server)
        XCTAssertEqual(server.received, Array("query".utf8))
        XCTAssertEqual(received, Array("answer".utf8))
        XCTAssertEqual(ends.count, 1)
        XCTAssertNil(ends.first ?? nil, "close_notify: a clean end")
    }

    func testACutConnectionEndsWithTheHopsError() throws {
        let (lower, client, server) = try connection()
        var ends: [RelayError?] = []
        client.onEnd = { ends.append($0) }
        client.connect { _ in }
        pump(lower, server)
        lower.deliverEOF()
        XCTAssertEqual(ends.count, 1)
        XCTAssertEqual(ends.first??.hop, hop)
        XCTAssertEqual(ends.first??.cause, .tunnelEndedEarly("the connection ended without a TLS close_notify"))
    }

    func testAnUntrustedServerFailsTheConnect() throws {
        let lower = MemoryLayer(hop: hop)
        let client = try TLSClientConnection(over: lower, serverName: "relay.test", trust: TLSTrust(pinnedPublicKeys: [[UInt8](repeating: 1, count: 32)]),
                                             alpn: [], description: hop)
        var outcome: Result<Void, RelayError>?
        client.connect { outcome = $0 }
        pump(lower, try OpenSSLTestServer())
        guard case .failure(let error)? = outcome else { return XCTFail("a key matching no pin was accepted") }
        XCTAssertEqual(error.cause, .publicKeyPinMismatch)
        XCTAssertTrue(lower.closed)
    }
}
