import Foundation
import XCTest
import RelayFetch
import RelayFetchTestSupport

/// One relay spoken to with HTTP/1.1 CONNECT is libcurl's own proxy (no local bridge): the same
/// invariants as every other route, read from the relays' and origins' own logs.
final class CurlProxyRouteTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    /// Our hostile HTTP/1.1 relay on relay A's address, passing everything through.
    private func passingRelay() throws -> HostileServer {
        try HostileServer(script: "h1_relay.py", host: "127.0.0.11", arguments: ["--mode", "stall-after", "--bytes", String(1 << 40)])
    }

    /// The CONNECT carries Host and the hop's own field, nothing of the request (no User-Agent,
    /// no Proxy-Connection); the request's User-Agent reaches the origin, the hop's field never.
    func testTheConnectCarriesOnlyHostAndTheHopsFields() async throws {
        let relay = try passingRelay()
        defer { relay.stop() }
        let marker = TestServers.marker("h1scope")
        let hop = TestServers.relayHop(url: URL(string: "https://127.0.0.11:\(relay.port)")!, relayProtocol: .http1)
        let session = try Session(configuration: TestServers.configuration(hops: [hop]))
        defer { session.invalidate() }
        let (body, response) = try await session.data(from: URL(string: "https://origin.test/echo-headers?\(marker)")!)

        XCTAssertEqual(response.relayHops, ["127.0.0.11:\(relay.port)"])
        XCTAssertEqual(try relay.events().filter { $0.hasPrefix("CONNECT\t") }, ["CONNECT\torigin.test:443"])
        XCTAssertEqual(try relay.events().filter { $0.hasPrefix("FIELDS\t") }, ["FIELDS\thost,proxy-authorization"])
        let echoed = String(decoding: body, as: UTF8.self)
        XCTAssertTrue(echoed.contains("proxy-authorization: \n"), "origin saw: \(echoed)")
        XCTAssertFalse(echoed.contains("relay-token-A"), "the hop's field reached the origin: \(echoed)")
        let line = try XCTUnwrap(TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first)
        XCTAssertEqual(line[OriginLogField.proxyAuthorization.rawValue], "-")
        XCTAssertTrue(line[OriginLogField.userAgent.rawValue].hasPrefix("relayfetch/"), "\(line)")
    }

    /// Requests to one origin share one tunnel (libcurl reuses the proxy connection); another
    /// origin gets a tunnel of its own. The relay's log and the session's count agree.
    func testRequestsToOneOriginReuseOneTunnel() async throws {
        let relay = try passingRelay()
        defer { relay.stop() }
        let hop = TestServers.relayHop(url: URL(string: "https://127.0.0.11:\(relay.port)")!, relayProtocol: .http1)
        let session = try Session(configuration: TestServers.configuration(hops: [hop]))
        defer { session.invalidate() }
        let reports = ReportCollector()
        session.onTunnelOpen { reports.add($0) }
        for path in ["/index.html", "/index.html?second", "/index.html?third"] {
            _ = try await session.data(from: URL(string: "https://origin.test\(path)")!)
        }
        let (_, response) = try await session.data(from: URL(string: "https://origin2.test/index.html")!)

        XCTAssertEqual(try relay.events().filter { $0.hasPrefix("CONNECT\t") }, ["CONNECT\torigin.test:443", "CONNECT\torigin2.test:443"])
        let opened = await session.relayConnectionsOpened()
        XCTAssertEqual(opened, [1: 2])
        XCTAssertEqual(response.relayHopTimings.map(\.protocolName), ["HTTPS, HTTP/1.1 CONNECT"])
        XCTAssertEqual(reports.all.map { "hop \($0.index) (\($0.hop), \($0.protocolName))" },
                       Array(repeating: "hop 1 (127.0.0.11:\(relay.port), HTTPS, HTTP/1.1 CONNECT)", count: 2))
    }

    /// An http:// origin is tunnelled with CONNECT too: squid logs a CONNECT to it and never the
    /// request itself (which an absolute-form request through the relay would show).
    func testAPlainHTTPOriginIsTunnelledNotProxied() async throws {
        let origin = try HostileServer(script: "origin.py", arguments: ["--plain"])
        defer { origin.stop() }
        let marker = TestServers.marker("h1plain")
        let earlier = try TestServers.logLines(TestServers.relayLog, containing: "origin.test:\(origin.port)").count
        let session = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop(relayProtocol: .http1)]))
        let (body, _) = try await session.data(from: URL(string: "http://origin.test:\(origin.port)/hello?\(marker)")!)
        session.invalidate()  // squid logs a tunnel when it closes

        XCTAssertEqual(String(decoding: body, as: UTF8.self), "ok /hello\n")
        let tunnels = try TestServers.waitForLogLines(TestServers.relayLog, containing: "origin.test:\(origin.port)", skipping: earlier)
        XCTAssertEqual(tunnels.values(SquidLogField.method), ["CONNECT"], "\(tunnels)")
        XCTAssertEqual(try TestServers.logLines(TestServers.relayLog, containing: marker).count, 0, "squid saw the request itself")
        XCTAssertEqual(try origin.events().filter { $0.contains(marker) }.count, 1)
    }

    /// Pinned keys stand in for the CA, as on every other route: the right key loads, another
    /// fails naming the hop, and nothing reaches the origin then.
    func testPinnedPublicKeyDecidesTrust() async throws {
        let marker = TestServers.marker("h1pin")
        for (pin, shouldWork) in [(try TestServers.relayPublicKeySHA256(), true), (Data(repeating: 7, count: 32), false)] {
            var hop = TestServers.relayHop(trustTestCA: false, relayProtocol: .http1)
            hop.tlsOptions.pinnedPublicKeySHA256 = [pin]
            let session = try Session(configuration: TestServers.configuration(hops: [hop]))
            defer { session.invalidate() }
            do {
                _ = try await session.data(from: URL(string: "https://\(TestServers.originAAddress)/index.html?\(marker)-\(shouldWork)")!)
                XCTAssertTrue(shouldWork, "a relay whose key matches no pin carried a request")
            } catch let error as FetchError {
                XCTAssertFalse(shouldWork, error.description)
                XCTAssertEqual(error.relayError?.cause, .publicKeyPinMismatch, error.description)
                XCTAssertTrue(error.description.hasPrefix("hop 1 (127.0.0.11:3129, HTTPS, HTTP/1.1 CONNECT)"), error.description)
            }
        }
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: "\(marker)-true", skipping: 0).first?.first, "127.0.0.11")
        try await TestServers.proveDirectlyReachable(TestServers.originAAddress)
        XCTAssertEqual(try TestServers.logLines(TestServers.originALog, containing: "\(marker)-false").count, 0, "origin A was reached")
    }

    /// Without the relay's CA the relay is not trusted: verification of the relay stays on.
    func testAnUntrustedRelayCertificateIsATLSErrorNamingTheHop() async throws {
        let marker = TestServers.marker("h1untrusted")
        let session = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop(trustTestCA: false, relayProtocol: .http1)]))
        defer { session.invalidate() }
        let error = await session.fetchError(URL(string: "https://\(TestServers.originAAddress)/index.html?\(marker)")!)
        XCTAssertTrue(error?.relayError?.cause.description.hasPrefix("TLS handshake failed") == true, "\(String(describing: error))")
        XCTAssertEqual(error?.relayError?.hop.index, 1)
        try await TestServers.proveDirectlyReachable(TestServers.originAAddress)
        XCTAssertEqual(try TestServers.logLines(TestServers.originALog, containing: marker).count, 0, "origin A was reached")
    }
}
