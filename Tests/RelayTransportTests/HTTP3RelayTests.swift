import Foundation
import Locking
import XCTest
@testable import RelayTransport
import RelayFetchTestSupport

/// The first hop over QUIC + HTTP/3 CONNECT, built by the chain builder against the aioquic
/// relay (relay A, UDP 127.0.0.11:4433) and the nginx origins:
/// QUIC(relay) -> HTTP/3 CONNECT(origin:443) -> TLS(origin) -> HTTP/1.1.
final class HTTP3RelayTests: XCTestCase {
    static let relayLog = TestServers.http3RelayALog

    override func setUpWithError() throws { try TestServers.ensureRunning() }

    static func relay(token: String? = TestServers.relayToken, host: String = "127.0.0.11",
                      trust: TLSTrust = TLSTrust(caFile: TestServers.caFile)) -> RelayEndpoint {
        RelayEndpoint(host: host, port: 4433, trust: trust,
                      headerFields: token.map { [("Proxy-Authorization", $0)] } ?? [],
                      relayProtocol: .http3)
    }

    func testTunnelCarriesTLSAndHTTP1ToTheOrigin() throws {
        let session = HTTP3TestChain()
        defer { session.end() }
        let marker = TestServers.marker("h3")
        let linesBefore = try TestServers.allLogLines(Self.relayLog).count
        let (tunnel, reports) = try session.tunnel(through: [Self.relay()]).get()
        XCTAssertEqual(reports.map(\.hop.index), [1])
        XCTAssertEqual(reports.first?.hop.protocolName, "QUIC, HTTP/3 CONNECT")
        let response = session.fetch(over: tunnel, path: "/index.html?\(marker)")
        XCTAssertTrue(response.hasPrefix("HTTP/1.1 200"), response)
        XCTAssertTrue(response.contains("<title>relayfetch sample site</title>"), response)
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first?.first, "127.0.0.11")
        let ours = try TestServers.ownSockets(.udp, to: "127.0.0.11:4433")
        let connects = try TestServers.http3RelayLines(Self.relayLog, skipping: linesBefore, from: ours)
        XCTAssertEqual(connects.values(HTTP3RelayLogField.authority), ["origin.test:443"], "the HTTP/3 relay carried the tunnel: \(ours)")
        XCTAssertEqual(connects.values(HTTP3RelayLogField.status), ["200"])
    }

    func testWithoutTheTokenTheRelayAnswers407NamingHop1() throws {
        let session = HTTP3TestChain()
        defer { session.end() }
        let result = session.tunnel(through: [Self.relay(token: nil)])
        guard case .failure(let error) = result else { return XCTFail("expected 407, got a tunnel") }
        XCTAssertEqual(error.hop.index, 1)
        XCTAssertEqual(error.hop.protocolName, "QUIC, HTTP/3 CONNECT")
        XCTAssertEqual(error.cause, .tunnelRefused(status: 407, reason: "Proxy Authentication Required"))
    }

    func testTwoTunnelsShareOneQUICConnection() throws {
        let session = HTTP3TestChain()
        defer { session.end() }
        let linesBefore = try TestServers.allLogLines(Self.relayLog).count
        let (first, second) = session.twoTunnels(through: [Self.relay()])
        let (tunnelA, reportsA) = try first.get(), (tunnelB, reportsB) = try second.get()
        XCTAssertEqual([reportsA[0].reusedConnection, reportsB[0].reusedConnection].sorted { !$0 && $1 }, [false, true])
        let markerA = TestServers.marker("h3a"), markerB = TestServers.marker("h3b")
        XCTAssertTrue(session.fetch(over: tunnelA, path: "/index.html?\(markerA)").contains("relayfetch sample site"))
        XCTAssertTrue(session.fetch(over: tunnelB, path: "/index.html?\(markerB)").contains("relayfetch sample site"))
        let (third, thirdReports) = try session.tunnel(through: [Self.relay()]).get()
        XCTAssertEqual(thirdReports.first?.reusedConnection, true)
        // The kernel: one UDP socket to the relay; the relay: three tunnels, all from that socket.
        let ours = try TestServers.ownSockets(.udp, to: "127.0.0.11:4433")
        XCTAssertEqual(ours.count, 1, "one QUIC connection to the relay: \(ours)")
        let tunnels = try TestServers.http3RelayLines(Self.relayLog, skipping: linesBefore, from: ours)
            .with(HTTP3RelayLogField.method, "CONNECT").with(HTTP3RelayLogField.authority, "origin.test:443")
        XCTAssertEqual(tunnels.values(HTTP3RelayLogField.status), ["200", "200", "200"], "the relay's log: \(tunnels)")
        session.loop.execute { third.close() }
    }

    func testBulkDataGoesBothWaysBeyondTheFlowControlWindows() throws {
        let echo = try HTTP3EchoServer()
        let session = HTTP3TestChain()
        defer { session.end() }
        let (tunnel, _) = try session.tunnel(through: [Self.relay()], to: TunnelTarget(host: "127.0.0.1", port: echo.port)).get()
        var payload = [UInt8](repeating: 0, count: 4 << 20)
        for index in payload.indices { payload[index] = UInt8(truncatingIfNeeded: index &* 2654435761 >> 13) }
        let echoed = session.exchange(over: tunnel, sending: payload)
        XCTAssertEqual(echoed.count, payload.count)
        XCTAssertTrue(echoed == payload, "the echo differs from what was sent")
        XCTAssertEqual(echo.peerAddress, "127.0.0.11")
    }

    func testAPausedReaderGetsEverythingAfterResuming() throws {
        let session = HTTP3TestChain()
        defer { session.end() }
        let (tunnel, _) = try session.tunnel(through: [Self.relay()]).get()
        let response = session.fetchBytes(over: tunnel, path: "/big", pauseFor: 0.5)
        let headerEnd = (0..<max(0, response.count - 3)).first { Array(response[$0..<$0 + 4]) == Array("\r\n\r\n".utf8) }
        XCTAssertTrue(response.starts(with: Array("HTTP/1.1 200".utf8)), String(decoding: response.prefix(200), as: UTF8.self))
        XCTAssertEqual(headerEnd.map { response.count - $0 - 4 }, 1 << 20)
    }

    func testAnIdleConnectionClosesAndTheNextTunnelOpensANewOne() throws {
        let session = HTTP3TestChain(idleTimeout: 0.3)
        defer { session.end() }
        let linesBefore = try TestServers.allLogLines(Self.relayLog).count
        let (first, _) = try session.tunnel(through: [Self.relay()]).get()
        let firstSockets = try TestServers.ownSockets(.udp, to: "127.0.0.11:4433")
        session.loop.execute { first.close() }
        Thread.sleep(forTimeInterval: 0.1)
        let (second, reports) = try session.tunnel(through: [Self.relay()]).get()
        XCTAssertEqual(reports.first?.reusedConnection, true, "still within the idle timeout")
        session.loop.execute { second.close() }
        Thread.sleep(forTimeInterval: 0.8)
        XCTAssertEqual(try TestServers.ownSockets(.udp, to: "127.0.0.11:4433"), [], "after the idle timeout the connection was closed")
        let (third, _) = try session.tunnel(through: [Self.relay()]).get()
        let thirdSockets = try TestServers.ownSockets(.udp, to: "127.0.0.11:4433")
        XCTAssertEqual(firstSockets.count, 1)
        XCTAssertEqual(thirdSockets.count, 1)
        // The relay's log: two tunnels from the first connection, then one from a new one.
        let peers = try TestServers.http3RelayLines(Self.relayLog, skipping: linesBefore, from: firstSockets + thirdSockets)
            .with(HTTP3RelayLogField.method, "CONNECT").values(HTTP3RelayLogField.peer)
        XCTAssertEqual(peers, firstSockets + firstSockets + thirdSockets, "the relay's log")
        XCTAssertNotEqual(firstSockets, thirdSockets)
        session.loop.execute { third.close() }
    }

    func testAnHTTP2RelayBehindTheHTTP3Hop() throws {
        let relayB = RelayEndpoint(host: "127.0.0.12", port: 4433, trust: TLSTrust(caFile: TestServers.caFile),
                                   headerFields: [("Proxy-Authorization", TestServers.relayBToken)],
                                   relayProtocol: .http2)
        let session = HTTP3TestChain()
        defer { session.end() }
        let marker = TestServers.marker("h3h2")
        let (tunnel, reports) = try session.tunnel(through: [Self.relay(), relayB]).get()
        XCTAssertEqual(reports.map(\.hop.protocolName), ["QUIC, HTTP/3 CONNECT", "HTTPS, HTTP/2 CONNECT"])
        XCTAssertTrue(session.fetch(over: tunnel, path: "/index.html?\(marker)").contains("relayfetch sample site"))
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first?.first, "127.0.0.12")
    }

    func testRelayWithNothingListeningFailsNamingHop1() throws {
        let session = HTTP3TestChain()
        defer { session.end() }
        let started = Date()
        let result = session.tunnel(through: [Self.relay(host: "127.0.0.13")], connectTimeout: 3)
        let elapsed = Date().timeIntervalSince(started)
        guard case .failure(let error) = result else { return XCTFail("a relay that is down gave a tunnel") }
        XCTAssertEqual(error.hop.index, 1)
        XCTAssertEqual(error.hop.endpoint, "127.0.0.13:4433")
        XCTAssertEqual(error.hop.protocolName, "QUIC, HTTP/3 CONNECT")
        XCTAssertTrue([.connectionRefused, .timeout].contains(error.cause), "\(error)")
        XCTAssertLessThan(elapsed, 3.5)
    }

}

/// An event loop and a chain builder on it, driven synchronously from a test: builds tunnels and
/// runs one HTTPS request over a tunnel (TLS to origin.test, HTTP/1.1, Connection: close).
final class HTTP3TestChain {
    let loop = EventLoop()
    private var builder: RelayChainBuilder!
    private var keep: [AnyObject] = []

    init(idleTimeout: Double = 60) {
        let ready = DispatchSemaphore(value: 0)
        loop.execute { [self] in
            builder = RelayChainBuilder(loop: loop, idleTimeout: idleTimeout)
            ready.signal()
        }
        ready.wait()
    }

    func end() {
        closeAll()
        loop.shutdown()
    }

    /// Closes every pooled connection and lets go of the layers `fetchBytes` kept, as `end` does,
    /// with the loop left running.
    func closeAll() {
        let done = DispatchSemaphore(value: 0)
        loop.execute { [self] in
            builder.closeAll()
            keep.removeAll()
            done.signal()
        }
        done.wait()
    }

    typealias Outcome = Result<(TransportLayer, [HopReport]), RelayError>

    /// The builder's count of connections opened per hop.
    var connectionsOpened: [Int: Int] {
        let done = DispatchSemaphore(value: 0)
        var counts: [Int: Int] = [:]
        loop.execute { [self] in
            counts = builder.connectionsOpened
            done.signal()
        }
        done.wait()
        return counts
    }

    func tunnel(through hops: [RelayEndpoint], to target: TunnelTarget = TunnelTarget(host: "origin.test", port: 443),
                connectTimeout: Double = 5) -> Outcome {
        let done = DispatchSemaphore(value: 0)
        var outcome: Outcome?
        loop.execute { [self] in
            builder.build(hops: hops, to: target, connectTimeout: connectTimeout) {
                outcome = $0
                done.signal()
            }
        }
        _ = done.wait(timeout: .now() + connectTimeout + 5)
        return outcome ?? .failure(RelayError(hop: HopDescription(index: 0, endpoint: "test", protocolName: "-"), cause: .timeout))
    }

    /// Starts two builds in the same loop turn, so the second meets the first one's handshake.
    func twoTunnels(through hops: [RelayEndpoint]) -> (Outcome, Outcome) {
        let done = DispatchSemaphore(value: 0)
        var outcomes: [Int: Outcome] = [:]
        loop.execute { [self] in
            for index in 0..<2 {
                builder.build(hops: hops, to: TunnelTarget(host: "origin.test", port: 443), connectTimeout: 5) {
                    outcomes[index] = $0
                    done.signal()
                }
            }
        }
        _ = done.wait(timeout: .now() + 10)
        _ = done.wait(timeout: .now() + 10)
        let missing = RelayError(hop: HopDescription(index: 0, endpoint: "test", protocolName: "-"), cause: .timeout)
        return (outcomes[0] ?? .failure(missing), outcomes[1] ?? .failure(missing))
    }

    /// Loop thread: starts a build to origin.test:443 (for tests that drive many at once).
    func build(through hops: [RelayEndpoint], completion: @escaping (Outcome) -> Void) {
        builder.build(hops: hops, to: TunnelTarget(host: "origin.test", port: 443), connectTimeout: 20, completion: completion)
    }

    /// Loop thread: GET `path` over TLS inside `tunnel`, then close; `completion` gets the response text.
    func get(_ path: String, over tunnel: TransportLayer, context: TLSContext, completion: @escaping (String) -> Void) {
        do {
            let tls = try TLSLayer(over: tunnel, context: context, serverName: "origin.test", alpn: ["http/1.1"],
                                   hop: HopDescription(index: 0, endpoint: "origin.test:443", protocolName: "HTTPS"))
            var collector: HTTP3ResponseCollector?
            collector = HTTP3ResponseCollector {
                completion(String(decoding: collector?.bytes ?? [], as: UTF8.self))
                tls.close()
                collector = nil
            }
            tls.delegate = collector
            tls.connect { outcome in
                guard case .success = outcome else { return collector?.fail("\(outcome)") ?? () }
                tls.send(Array("GET \(path) HTTP/1.1\r\nHost: origin.test\r\nConnection: close\r\n\r\n".utf8))
            }
        } catch {
            completion("failed: \(error)")
        }
    }

    /// Sends `bytes` into `tunnel` and collects as many coming back, then closes the tunnel.
    func exchange(over tunnel: TransportLayer, sending bytes: [UInt8]) -> [UInt8] {
        let done = DispatchSemaphore(value: 0)
        let collector = HTTP3ResponseCollector(until: bytes.count) { done.signal() }
        loop.execute {
            tunnel.delegate = collector
            tunnel.send(bytes)
        }
        _ = done.wait(timeout: .now() + 30)
        loop.execute { tunnel.close() }
        return collector.received
    }

    /// GET `path` from origin.test over TLS inside `tunnel`; returns the raw response (or the
    /// error). With `pauseFor`, reading pauses that long after the first bytes arrive.
    func fetch(over tunnel: TransportLayer, path: String) -> String {
        let response = fetchBytes(over: tunnel, path: path)
        return String(decoding: response, as: UTF8.self)
    }

    func fetchBytes(over tunnel: TransportLayer, path: String, pauseFor pause: Double? = nil, timeout: Double = 10) -> [UInt8] {
        let done = DispatchSemaphore(value: 0)
        let collector = HTTP3ResponseCollector { done.signal() }
        loop.execute { [self] in
            do {
                let context = try TLSContext(trust: TLSTrust(caFile: TestServers.caFile))
                let tls = try TLSLayer(over: tunnel, context: context, serverName: "origin.test", alpn: ["http/1.1"],
                                       hop: HopDescription(index: 0, endpoint: "origin.test:443", protocolName: "HTTPS"))
                keep.append(tls)
                tls.delegate = collector
                if let pause {
                    collector.onFirstBytes = { [loop] in
                        tls.setReadingPaused(true)
                        loop.schedule(after: pause) { tls.setReadingPaused(false) }
                    }
                }
                tls.connect { outcome in
                    guard case .success = outcome else { return collector.fail("\(outcome)") }
                    tls.send(Array("GET \(path) HTTP/1.1\r\nHost: origin.test\r\nConnection: close\r\n\r\n".utf8))
                }
            } catch {
                collector.fail("\(error)")
            }
        }
        _ = done.wait(timeout: .now() + timeout)
        return collector.bytes
    }
}

/// Collects what a layer delivers until end of stream, failure, or `until` bytes.
final class HTTP3ResponseCollector: TransportLayerDelegate {
    private(set) var received: [UInt8] = []
    private var failure: String?
    private let until: Int?
    private var onEnd: (() -> Void)?
    var onFirstBytes: (() -> Void)?

    init(until: Int? = nil, onEnd: @escaping () -> Void) {
        self.until = until
        self.onEnd = onEnd
    }

    /// What arrived, or the failure as text.
    var bytes: [UInt8] { failure.map { Array("failed: \($0)".utf8) } ?? received }

    func layerDidReceive(_ bytes: [UInt8]) {
        received += bytes
        if let first = onFirstBytes {
            onFirstBytes = nil
            first()
        }
        if let until, received.count >= until { end() }
    }
    func layerDidReceiveEOF() { end() }
    func layerDidFail(_ error: RelayError) { fail("\(error)") }

    func fail(_ why: String) {
        failure = why
        end()
    }

    private func end() {
        onEnd?()
        onEnd = nil
    }
}

/// A TCP echo server on 127.0.0.1 for one connection, on a thread of its own: the tunnel's far end
/// for bulk transfers (the relay connects to loopback literals).
final class HTTP3EchoServer: Sendable {
    let port: UInt16
    private let listener: Int32
    private let peer = Locked<String?>(nil)

    init() throws {
        (listener, port) = try Self.boundSocket(type: SOCK_STREAM, address: "127.0.0.1")
        guard listen(listener, 1) == 0 else { throw TestServerError(description: "echo server: cannot listen") }
        Thread { [self] in serve() }.start()
    }

    /// A socket bound to `address` and a free port the kernel picks; the caller closes it.
    static func boundSocket(type: __socket_type, address: String) throws -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(type.rawValue), 0)
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_addr.s_addr = inet_addr(address)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard fd >= 0, bound else {
            close(fd)
            throw TestServerError(description: "cannot bind a socket to \(address)")
        }
        return (fd, UInt16(bigEndian: socketAddress.sin_port))
    }

    deinit { close(listener) }

    /// The address the relay connected from, once it has.
    var peerAddress: String? { peer.withLock { $0 } }

    private func serve() {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let client = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(listener, $0, &length) } }
        guard client >= 0 else { return }
        defer { close(client) }
        let text = String(cString: inet_ntoa(address.sin_addr))
        peer.withLock { $0 = text }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            var sent = 0
            while sent < count {
                let written = buffer.withUnsafeBytes { send(client, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL)) }
                guard written > 0 else { return }
                sent += written
            }
        }
    }
}
