import Foundation
import XCTest
import RelayFetch
import RelayFetchTestSupport

/// A fetch through squid (relay A): the origin sees the relay, never the client.
final class FetchThroughRelayTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    /// For each way to the relay: the transport's chain (automatic), and libcurl's own proxy (h1).
    func testOriginSeesOnlyTheRelayAddress() async throws {
        for relayProtocol in [RelayProtocol.automatic, .http1] { try await originSeesOnlyTheRelay(relayProtocol) }
    }

    private func originSeesOnlyTheRelay(_ relayProtocol: RelayProtocol) async throws {
        let marker = TestServers.marker("via-\(relayProtocol.rawValue)")
        let session = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop(relayProtocol: relayProtocol)]))
        defer { session.invalidate() }
        let (body, response) = try await session.data(from: URL(string: "https://origin.test/index.html?\(marker)")!)

        XCTAssertEqual(response.statusCode, 200)
        // libcurl's own proxy (h1) speaks HTTP/1.1 to the origin: its HTTP/2 streams multiplexed
        // inside the proxy's TLS stalled (HTTP1RelayPageLoadTests).
        let originVersion = relayProtocol == .http1 ? "HTTP/1.1" : "HTTP/2"
        XCTAssertEqual(response.httpVersion, originVersion)
        XCTAssertEqual(response.relayHops, ["127.0.0.11:3129"])
        XCTAssertTrue(String(decoding: body, as: UTF8.self).contains("relayfetch sample site"))
        let lines = try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0)
        XCTAssertEqual(lines.count, 1)
        XCTAssertEqual(lines.first?[OriginLogField.remoteAddress.rawValue], "127.0.0.11")
        XCTAssertEqual(lines.first?[OriginLogField.host.rawValue], "origin.test")
        XCTAssertEqual(lines.first?[OriginLogField.serverProtocol.rawValue], relayProtocol == .http1 ? "HTTP/1.1" : "HTTP/2.0",
                       "the origin's log: the client's protocol reached it")
    }

    func testHopHeaderReachesTheRelayAndNeverTheOrigin() async throws {
        for relayProtocol in [RelayProtocol.automatic, .http1] { try await hopHeaderStaysWithTheHop(relayProtocol) }
    }

    private func hopHeaderStaysWithTheHop(_ relayProtocol: RelayProtocol) async throws {
        let marker = TestServers.marker("scope-\(relayProtocol.rawValue)")
        let earlierTunnels = try TestServers.logLines(TestServers.relayLog, containing: "origin.test:443").count
        let session = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop(relayProtocol: relayProtocol)]))
        let (body, _) = try await session.data(from: URL(string: "https://origin.test/echo-headers?\(marker)")!)
        session.invalidate()  // closes the tunnel, so squid writes its log line

        let echoed = String(decoding: body, as: UTF8.self)
        XCTAssertTrue(echoed.contains("proxy-authorization: \n"), "origin saw: \(echoed)")
        XCTAssertFalse(echoed.contains("relay-token-A"))
        let originLines = try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0)
        XCTAssertEqual(originLines.first?[OriginLogField.proxyAuthorization.rawValue], "-")
        XCTAssertEqual(originLines.first?[OriginLogField.authorization.rawValue], "-")

        // The relay itself did receive the token on the CONNECT for origin.test.
        let relayLines = try TestServers.waitForLogLines(TestServers.relayLog, containing: "origin.test:443", skipping: earlierTunnels)
        XCTAssertTrue(relayLines.contains { $0.last == TestServers.relayToken && $0[2] == "CONNECT" && $0[1] == "127.0.0.1" },
                      "squid log: \(relayLines)")
    }

    func testMissingTokenIsRefusedWithAnErrorNamingHopOne() async throws {
        for relayProtocol in [RelayProtocol.automatic, .http1] { try await missingTokenIsRefused(relayProtocol) }
    }

    private func missingTokenIsRefused(_ relayProtocol: RelayProtocol) async throws {
        let marker = TestServers.marker("notoken-\(relayProtocol.rawValue)")
        let session = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop(token: nil, relayProtocol: relayProtocol)]))
        defer { session.invalidate() }
        for host in ["origin.test", TestServers.originAAddress] {
            do {
                _ = try await session.data(from: URL(string: "https://\(host)/index.html?\(marker)")!)
                XCTFail("a relay without its token must refuse")
            } catch let error as FetchError {
                XCTAssertEqual(error.relayError?.hop.index, 1)
                XCTAssertEqual(error.relayError?.cause, .tunnelRefused(status: 407, reason: "Proxy Authentication Required"))
                XCTAssertTrue(error.description.hasPrefix("hop 1 (127.0.0.11:3129"), error.description)
            }
        }
        try await TestServers.proveDirectlyReachable(TestServers.originAAddress)
        XCTAssertEqual(try TestServers.logLines(TestServers.originALog, containing: marker).count, 0, "origin A was reached")
    }

    func testRedirectIsFollowedThroughTheRelay() async throws {
        let session = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop()]))
        defer { session.invalidate() }
        let (_, response) = try await session.data(from: URL(string: "https://origin2.test/redirect")!)
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(response.url.absoluteString, "https://origin2.test/index.html")
    }

    func testLargeBodyArrivesIntact() async throws {
        let session = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop()]))
        defer { session.invalidate() }
        let (body, _) = try await session.data(from: URL(string: "https://origin.test/big")!)
        let expected = try Data(contentsOf: TestServers.directory.appendingPathComponent("nginx/big"))
        XCTAssertEqual(body.count, expected.count)
        XCTAssertEqual(body, expected)
    }

    func testResponseLargerThanTheLimitIsAnError() async throws {
        var configuration = TestServers.configuration(hops: [TestServers.relayHop()])
        configuration.maximumResponseSize = 1000
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        do {
            _ = try await session.data(from: URL(string: "https://origin.test/big")!)
            XCTFail("1 MiB must exceed a 1000-byte limit")
        } catch let error as FetchError {
            XCTAssertTrue(error.description.contains("larger than the limit of 1000 bytes"), error.description)
        }
    }
}
