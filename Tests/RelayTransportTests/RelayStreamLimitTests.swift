import Foundation
import XCTest
@testable import RelayTransport
import RelayFetchTestSupport

/// A thousand long-lived tunnels opened at once through one relay, more than its limit of
/// concurrent streams per connection (nghttpx: SETTINGS_MAX_CONCURRENT_STREAMS 256; aioquic:
/// MAX_STREAMS 128): every one must open, each connection keeping within the limit, the excess
/// going to further pooled connections rather than queue behind tunnels that never end. Proven
/// from the servers' logs: the relay's CONNECT lines for this run's origin port, and the origin's
/// line for each tunnel's greeting. Old code: 256 of 1,000 opened over HTTP/2 and 128 over
/// HTTP/3; the rest timed out at hop 1.
final class RelayStreamLimitTests: XCTestCase {
    private static let tunnels = 1_000
    /// Well under the 15 s connect timeout the old code's excess tunnels died at.
    private static let bound = 12.0

    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testAThousandHeldTunnelsThroughOneHTTP2Relay() throws {
        let origin = try HostileServer(script: "held_origin.py")
        defer { origin.stop() }
        let relay = RelayEndpoint(host: "127.0.0.11", port: 4433, trust: TLSTrust(caFile: TestServers.caFile),
                                  headerFields: [("Proxy-Authorization", TestServers.relayToken)], relayProtocol: .http2)
        let held = try HeldTunnels.open(Self.tunnels, through: relay, to: TunnelTarget(host: "origin.test", port: origin.port))
        defer { held.end() }
        XCTAssertEqual(held.failures, [], "tunnels that failed (first few)")
        XCTAssertLessThan(held.elapsed, Self.bound, "all tunnels open and answered")
        // The kernel: enough connections for 256 streams each, and few.
        let connections = try TestServers.ownSockets(.tcp, to: "127.0.0.11:4433")
        XCTAssertTrue((4...16).contains(connections.count), "\(connections.count) connections to the relay")
        // The relay: one CONNECT answered 200 per tunnel, to this run's origin port.
        let connects = try TestServers.logLines(TestServers.http2RelayALog, containing: "origin.test:\(origin.port)")
        XCTAssertEqual(connects.with(HTTP2RelayLogField.method, "CONNECT").with(HTTP2RelayLogField.status, "200").count, Self.tunnels)
        try assertOriginGreeted(origin)
    }

    func testAThousandHeldTunnelsThroughOneHTTP3Relay() throws {
        let origin = try HostileServer(script: "held_origin.py")
        defer { origin.stop() }
        let linesBefore = try TestServers.allLogLines(TestServers.http3RelayALog).count
        let held = try HeldTunnels.open(Self.tunnels, through: HTTP3RelayTests.relay(), to: TunnelTarget(host: "origin.test", port: origin.port))
        defer { held.end() }
        XCTAssertEqual(held.failures, [], "tunnels that failed (first few)")
        XCTAssertLessThan(held.elapsed, Self.bound, "all tunnels open and answered")
        let sockets = try TestServers.ownSockets(.udp, to: "127.0.0.11:4433")
        XCTAssertTrue((8...16).contains(sockets.count), "\(sockets.count) QUIC connections to the relay")
        let lines = try TestServers.http3RelayLines(TestServers.http3RelayALog, skipping: linesBefore, from: sockets)
        let connects = lines.with(HTTP3RelayLogField.authority, "origin.test:\(origin.port)").with(HTTP3RelayLogField.status, "200")
        XCTAssertEqual(connects.count, Self.tunnels)
        // No connection carried more streams than the relay allows at once (all are held open).
        let perConnection = Dictionary(grouping: connects, by: { $0[HTTP3RelayLogField.peer.rawValue] }).mapValues(\.count)
        XCTAssertLessThanOrEqual(perConnection.values.max() ?? 0, 128, "\(perConnection)")
        try assertOriginGreeted(origin)
    }

    /// Held to one connection, the tunnels beyond the relay's 256 streams wait for a stream
    /// (within their connect timeout) rather than fail or exceed the limit, and open as soon as
    /// other tunnels end: never more than 256 at once, all in the relay's log in the end.
    func testTunnelsBeyondTheLastConnectionWaitForAStream() throws {
        let origin = try HostileServer(script: "held_origin.py")
        defer { origin.stop() }
        let relay = RelayEndpoint(host: "127.0.0.11", port: 4433, trust: TLSTrust(caFile: TestServers.caFile),
                                  headerFields: [("Proxy-Authorization", TestServers.relayToken)], relayProtocol: .http2)
        let held = HeldTunnels(maxConnectionsPerRelay: 1)
        defer { held.end() }
        held.start(300, through: relay, to: TunnelTarget(host: "origin.test", port: origin.port))
        XCTAssertTrue(held.waitFor(256, timeout: 10), "a connection's worth of tunnels opened")
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertEqual(held.counts.finished, 256, "the rest wait: \(held.failures)")
        held.closeOpen(50)
        XCTAssertTrue(held.waitFor(300, timeout: 5), "the waiting tunnels opened as streams ended")
        XCTAssertEqual(held.failures, [])
        XCTAssertEqual(try TestServers.ownSockets(.tcp, to: "127.0.0.11:4433").count, 1)
        let connects = try TestServers.logLines(TestServers.http2RelayALog, containing: "origin.test:\(origin.port)")
        XCTAssertEqual(connects.with(HTTP2RelayLogField.method, "CONNECT").with(HTTP2RelayLogField.status, "200").count, 300)
        let hellos = try origin.events().filter { $0.hasPrefix("hello\t") }
        XCTAssertEqual(hellos.count, 300)
    }

    /// A relay that answers REFUSED_STREAM (its limit was lower than it said): the CONNECT is
    /// sent again, on a second connection, and the tunnel opens. Old code: the tunnel failed
    /// with "relay reset the stream: REFUSED_STREAM 0x7".
    func testAStreamTheRelayRefusesGoesAgainOnAnotherConnection() throws {
        let relay = try HostileServer(script: "h2_relay.py", host: "127.0.0.11", arguments: ["--mode", "refuse-first"])
        defer { relay.stop() }
        let endpoint = RelayEndpoint(host: "127.0.0.11", port: relay.port, trust: TLSTrust(caFile: TestServers.caFile), relayProtocol: .http2)
        let chain = HTTP3TestChain()
        defer { chain.end() }
        let outcome = chain.tunnel(through: [endpoint])
        XCTAssertNoThrow(try outcome.get(), "\(outcome)")
        let events = try relay.events().map { $0.components(separatedBy: "\t")[0] }
        XCTAssertEqual(events.filter { $0 == "CONNECTION" }.count, 2, "\(events)")
        XCTAssertEqual(events.filter { $0 == "REFUSED" }.count, 1, "\(events)")
        XCTAssertEqual(events.filter { $0 == "CONNECT" }.count, 1, "\(events)")
    }

    /// An HTTP/3 relay that resets the first request with H3_REQUEST_REJECTED (unprocessed): the
    /// CONNECT is sent again and the tunnel opens. Old code: the tunnel failed with "relay reset
    /// the stream: H3_REQUEST_REJECTED 0x10b".
    func testAStreamTheHTTP3RelayRejectsGoesAgain() throws {
        let relay = try HTTP3RelayInstance(host: "127.0.0.11", rejectFirst: 1)
        let endpoint = RelayEndpoint(host: "127.0.0.11", port: relay.port, trust: TLSTrust(caFile: TestServers.caFile),
                                     headerFields: [("Proxy-Authorization", TestServers.relayBToken)], relayProtocol: .http3)
        let chain = HTTP3TestChain()
        defer { chain.end() }
        let outcome = chain.tunnel(through: [endpoint])
        XCTAssertNoThrow(try outcome.get(), "\(outcome)")
        let statuses = try relay.lines().with(HTTP3RelayLogField.authority, "origin.test:443").values(HTTP3RelayLogField.status)
        XCTAssertEqual(statuses, ["rejected", "200"])
    }

    /// The origin logged every tunnel's greeting, each id once, all from the relay's address.
    private func assertOriginGreeted(_ origin: HostileServer, file: StaticString = #filePath, line: UInt = #line) throws {
        let hellos = try origin.events().map { $0.components(separatedBy: "\t") }.filter { $0.first == "hello" }
        XCTAssertEqual(Set(hellos.map { $0[1] }).count, Self.tunnels, file: file, line: line)
        XCTAssertEqual(Set(hellos.map { $0[2] }), ["127.0.0.11"], file: file, line: line)
    }
}

/// Tunnels opened all at once on a loop of their own and held: each sends "HELLO <n>" to the
/// origin and waits for its "OK <n>"; the outcome of each is collected, then all stay open
/// until `closeOpen` or `end`.
private final class HeldTunnels: @unchecked Sendable {
    let loop = EventLoop()
    private var builder: RelayChainBuilder!
    private var layers: [TransportLayer] = []
    private var readers: [GreetingReader] = []
    /// Outcomes so far (touched on the loop; read through `counts`).
    private var finished = 0
    private var failed: [String] = []
    private var started = Date()
    private var lastFinished = Date()

    /// Opens `count` tunnels and waits for every outcome (40 s at most).
    static func open(_ count: Int, through relay: RelayEndpoint, to target: TunnelTarget) throws -> HeldTunnels {
        let held = HeldTunnels(maxConnectionsPerRelay: 16)
        held.start(count, through: relay, to: target)
        guard held.waitFor(count, timeout: 40) else {
            held.end()
            throw TestServerError(description: "the tunnels did not all finish within 40 s")
        }
        return held
    }

    init(maxConnectionsPerRelay: Int) {
        let ready = DispatchSemaphore(value: 0)
        loop.execute { [self] in
            builder = RelayChainBuilder(loop: loop, maxConnectionsPerRelay: maxConnectionsPerRelay)
            ready.signal()
        }
        ready.wait()
    }

    /// Starts `count` tunnels to `target`, numbered from 0.
    func start(_ count: Int, through relay: RelayEndpoint, to target: TunnelTarget, connectTimeout: Double = 15) {
        loop.execute { [self] in
            started = Date()
            for index in 0..<count {
                builder.build(hops: [relay], to: target, connectTimeout: connectTimeout) { [self] outcome in
                    switch outcome {
                    case .failure(let error):
                        record("tunnel \(index): \(error)")
                    case .success(let (tunnel, _)):
                        let reader = GreetingReader(expected: "OK \(index)\n") { [self] answered in record(answered ? nil : "tunnel \(index): no answer") }
                        tunnel.delegate = reader
                        layers.append(tunnel)
                        readers.append(reader)
                        tunnel.send(Array("HELLO \(index)\n".utf8))
                    }
                }
            }
        }
    }

    private func record(_ failure: String?) {
        finished += 1
        lastFinished = Date()
        if let failure { failed.append(failure) }
    }

    /// Outcomes so far, failures (the first five) and seconds from the start to the last outcome.
    var counts: (finished: Int, failures: [String], elapsed: Double) {
        let done = DispatchSemaphore(value: 0)
        var result: (Int, [String], Double) = (0, [], 0)
        loop.execute { [self] in
            result = (finished, Array(failed.prefix(5)), lastFinished.timeIntervalSince(started))
            done.signal()
        }
        done.wait()
        return result
    }

    var failures: [String] { counts.failures }
    var elapsed: Double { counts.elapsed }

    /// Waits until `count` tunnels have an outcome; false at the timeout.
    func waitFor(_ count: Int, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while counts.finished < count {
            guard Date() < deadline else { return false }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return true
    }

    /// Closes the first `count` tunnels that opened.
    func closeOpen(_ count: Int) {
        let done = DispatchSemaphore(value: 0)
        loop.execute { [self] in
            for layer in layers.prefix(count) { layer.close() }
            layers.removeFirst(min(count, layers.count))
            done.signal()
        }
        done.wait()
    }

    func end() {
        let done = DispatchSemaphore(value: 0)
        loop.execute { [self] in
            for layer in layers { layer.close() }
            layers.removeAll()
            builder?.closeAll()
            done.signal()
        }
        done.wait()
        loop.shutdown()
    }
}

/// Waits for one line from the origin through a tunnel.
private final class GreetingReader: TransportLayerDelegate {
    private let expected: [UInt8]
    private var received: [UInt8] = []
    private var answered: ((Bool) -> Void)?

    init(expected: String, answered: @escaping (Bool) -> Void) {
        self.expected = Array(expected.utf8)
        self.answered = answered
    }

    func layerDidReceive(_ bytes: [UInt8]) {
        received += bytes
        if received.count >= expected.count { finish(received == expected) }
    }

    func layerDidReceiveEOF() { finish(false) }
    func layerDidFail(_ error: RelayError) { finish(false) }

    private func finish(_ ok: Bool) {
        answered?(ok)
        answered = nil
    }
}
