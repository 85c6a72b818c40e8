#if canImport(Glibc)
import Glibc
#endif
import Foundation
import RelayFetch
import RelayFetchTestSupport
import XCTest

/// `--origin-protocol auto` races QUIC and TCP to an origin that announced HTTP/3 (Alt-Svc):
/// QUIC gets `http3FallbackDelay` as a head start, the first connection up carries the request
/// (once), and the choice holds for the rest of the session. Against Caddy on 127.0.24.1, whose
/// access log tells each request's protocol, and a UDP port on the same host that takes
/// datagrams and answers none (QUIC blackholed: no ICMP error ends the attempt early).
final class HTTP3OriginRaceTests: XCTestCase {
    nonisolated(unsafe) private static var origin: CaddyOrigin?
    nonisolated(unsafe) private static var blackhole: Int32 = -1
    private static let host = "127.0.24.1"
    private static let blackholePort: UInt16 = 8612
    private static let headStart = 1.0

    override class func setUp() {
        super.setUp()
        blackhole = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = blackholePort.bigEndian
        address.sin_addr.s_addr = inet_addr(host)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(blackhole, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        if bound != 0 { close(blackhole); blackhole = -1 }
        origin = try? CaddyOrigin(host: host, port: 8611, alternativePort: blackholePort)
    }

    override class func tearDown() {
        origin = nil
        if blackhole >= 0 { close(blackhole) }
        super.tearDown()
    }

    private func caddy() throws -> CaddyOrigin {
        guard Self.blackhole >= 0 else { throw TestServerError(description: "cannot bind UDP \(Self.host):\(Self.blackholePort)") }
        guard let origin = Self.origin else { throw TestServerError(description: "caddy did not start on \(Self.host) (run scripts/setup.sh)") }
        return origin
    }

    private func session() throws -> Session {
        var configuration = TestServers.configuration(hops: [])
        configuration.originProtocol = .automatic
        configuration.http3FallbackDelay = Self.headStart
        return try Session(configuration: configuration)
    }

    /// QUIC blackholed: the first request goes over TCP near the head start, and the next ones
    /// at once (TCP is remembered); each reaches the origin once, over TCP.
    func testBlackholedQUICLosesTheRaceOnceAndTCPIsRemembered() async throws {
        let origin = try caddy()
        let marker = TestServers.marker("blackhole")
        let session = try session()
        defer { session.invalidate() }
        let (_, announcing) = try await session.data(from: URL(string: "\(origin.url)/h3/otheralt?\(marker)-0")!)
        XCTAssertEqual(announcing.value(forHeaderField: "Alt-Svc"), "h3=\":\(Self.blackholePort)\"")
        var durations: [Double] = []
        // Every answer announces the blackholed port again (Caddy's own h3 port is never named).
        for index in 1...3 {
            let started = Date()
            let (body, response) = try await session.data(from: URL(string: "\(origin.url)/h3/otheralt?\(marker)-\(index)")!)
            durations.append(Date().timeIntervalSince(started))
            XCTAssertEqual(response.statusCode, 200)
            XCTAssertNotEqual(response.httpVersion, "HTTP/3")
            XCTAssertEqual(String(decoding: body, as: UTF8.self), "moved")
        }
        XCTAssertGreaterThanOrEqual(durations[0], Self.headStart * 0.9, "TCP went before QUIC's head start: \(durations)")
        XCTAssertLessThan(durations[0], Self.headStart + 1.5, "TCP did not go near the head start: \(durations)")
        XCTAssertLessThan(durations[1], Self.headStart / 2, "the second request waited for QUIC again: TCP was not remembered (\(durations))")
        XCTAssertLessThan(durations[2], Self.headStart / 2, "the third request waited for QUIC again: \(durations)")
        for index in 1...3 {
            let logged = try origin.requests(containing: "\(marker)-\(index)", expected: 1)
            XCTAssertEqual(logged.count, 1, "request \(index) reached the origin \(logged.count) times")
            XCTAssertTrue(logged.allSatisfy { $0.proto.hasPrefix("HTTP/2") || $0.proto.hasPrefix("HTTP/1") }, "\(logged.map(\.proto))")
        }
        let blackholed = try origin.requests(containing: marker, settle: 0.5).filter { $0.proto == "HTTP/3.0" }
        XCTAssertEqual(blackholed.count, 0)
    }

    /// A streamed body (`bytes(for:)`, as `get` reads one) takes the same race: over TCP near the
    /// head start, then at once; each request reaches the origin once.
    func testAStreamedBodyRacesTheSameWay() async throws {
        let origin = try caddy()
        let marker = TestServers.marker("streamed")
        let session = try session()
        defer { session.invalidate() }
        _ = try await session.data(from: URL(string: "\(origin.url)/h3/otheralt?\(marker)-0")!)
        var durations: [Double] = []
        for index in 1...2 {
            let started = Date()
            let (body, response) = try await session.bytes(for: HTTPRequest(url: URL(string: "\(origin.url)/h3/otheralt?\(marker)-\(index)")!))
            var text = Data()
            for try await chunk in body.chunks { text.append(chunk) }
            durations.append(Date().timeIntervalSince(started))
            XCTAssertNotEqual(response.httpVersion, "HTTP/3")
            XCTAssertEqual(String(decoding: text, as: UTF8.self), "moved")
        }
        XCTAssertGreaterThanOrEqual(durations[0], Self.headStart * 0.9, "\(durations)")
        XCTAssertLessThan(durations[1], Self.headStart / 2, "TCP was not remembered: \(durations)")
        for index in 1...2 { XCTAssertEqual(try origin.requests(containing: "\(marker)-\(index)", expected: 1).count, 1) }
    }

    /// A healthy HTTP/3 origin wins the race: once announced, requests go over HTTP/3, once each.
    func testAHealthyHTTP3OriginWinsTheRace() async throws {
        let origin = try caddy()
        let marker = TestServers.marker("healthy")
        let session = try session()
        defer { session.invalidate() }
        let (_, first) = try await session.data(from: URL(string: "\(origin.url)/index.html?\(marker)-0")!)
        XCTAssertNotEqual(first.httpVersion, "HTTP/3", "nothing was announced yet: TCP")
        for index in 1...2 {
            let (_, response) = try await session.data(from: URL(string: "\(origin.url)/about.html?\(marker)-\(index)")!)
            XCTAssertEqual(response.httpVersion, "HTTP/3")
            let logged = try origin.requests(containing: "\(marker)-\(index)", expected: 1)
            XCTAssertEqual(logged.map(\.proto), ["HTTP/3.0"], "request \(index): once, over HTTP/3")
        }
    }
}
