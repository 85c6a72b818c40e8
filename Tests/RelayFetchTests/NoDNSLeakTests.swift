import Foundation
import XCTest
import RelayFetch
import RelayFetchTestSupport

/// Invariant 2: names behind a relay are resolved by the relay, never locally.
final class NoDNSLeakTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    /// For each way to the relay: the transport's chain (automatic), and libcurl's own proxy (h1).
    func testNameOnlyTheRelayCanResolveLoadsThroughIt() async throws {
        for relayProtocol in [RelayProtocol.automatic, .http1] { try await nameOnlyTheRelayResolves(relayProtocol) }
    }

    private func nameOnlyTheRelayResolves(_ relayProtocol: RelayProtocol) async throws {
        let marker = TestServers.marker("dns-\(relayProtocol.rawValue)")
        // origin2.test exists only in squid's hosts file; the client has no way to resolve it
        // (and ProcessLevelPrivacyTests shows the client never consults a resolver at all).
        let hosts = (try? String(contentsOfFile: "/etc/hosts", encoding: .utf8)) ?? ""
        XCTAssertFalse(hosts.contains("origin2.test"), "the client must not be able to resolve origin2.test")

        let relayed = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop(relayProtocol: relayProtocol)]))
        defer { relayed.invalidate() }
        let (_, response) = try await relayed.data(from: URL(string: "https://origin2.test/index.html?\(marker)")!)
        XCTAssertEqual(response.statusCode, 200)
        // nginx writes its log line just after the response: wait for it rather than race it.
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originBLog, containing: marker, skipping: 0).first?[OriginLogField.remoteAddress.rawValue], "127.0.0.11")
    }

    /// A SOCKS5 hop: origin2.test is in the SOCKS server's own hosts file only, so the fetch
    /// works only if the name travels to it (ATYP 3) and it resolves it; its log shows the name.
    func testNameOnlyTheSOCKSServerCanResolveLoadsThroughIt() async throws {
        let marker = TestServers.marker("dns-socks5")
        let hosts = (try? String(contentsOfFile: "/etc/hosts", encoding: .utf8)) ?? ""
        XCTAssertFalse(hosts.contains("origin2.test"), "the client must not be able to resolve origin2.test")
        let socks = try SOCKSServer()
        let session = try Session(configuration: TestServers.configuration(hops: [ProxyConfiguration.RelayHop(http2RelayEndpoint: socks.url())]))
        defer { session.invalidate() }
        let (_, response) = try await session.data(from: URL(string: "https://origin2.test/index.html?\(marker)")!)
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(try socks.waitForConnections(1).map(\.target), ["origin2.test:443"])
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originBLog, containing: marker, skipping: 0).first?[OriginLogField.remoteAddress.rawValue],
                       SOCKSServer.address)
    }
}
