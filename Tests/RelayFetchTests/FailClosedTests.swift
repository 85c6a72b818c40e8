import Foundation
import XCTest
import RelayFetch
import RelayFetchTestSupport

/// Invariant 1: traffic a relay configuration covers never goes direct, even with the relay down.
/// The targets include the origins' IP literals, which a direct connection could reach (each test
/// proves it afterwards), so these tests fail if anything goes direct.
final class FailClosedTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    /// For each way to a relay: the transport's chain (automatic), and libcurl's own proxy (h1).
    func testRelayDownFailsNamingHopOneAndNothingReachesTheOrigin() async throws {
        for relayProtocol in [RelayProtocol.automatic, .http1] { try await relayDownFailsClosed(relayProtocol) }
    }

    private func relayDownFailsClosed(_ relayProtocol: RelayProtocol) async throws {
        let marker = TestServers.marker("down-\(relayProtocol.rawValue)")
        var hop = TestServers.relayHop(url: TestServers.deadRelayURL, relayProtocol: relayProtocol)
        hop.tlsOptions = .init(certificateAuthorityFile: TestServers.caFile)
        var proxy = ProxyConfiguration(relayHops: [hop])
        proxy.allowFailover = true  // even asking for failover must not open a direct path
        var configuration = TestServers.configuration(hops: [])
        configuration.proxyConfigurations = [proxy]
        configuration.connectTimeout = 3
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }

        let started = Date()
        for host in ["origin.test", TestServers.originAAddress, TestServers.originBAddress] {
            let url = "https://\(host)/index.html?\(marker)"
            do {
                _ = try await session.data(from: URL(string: url)!)
                XCTFail("\(url) must not load with the relay down")
            } catch let error as FetchError {
                XCTAssertEqual(error.relayError?.hop.index, 1)
                XCTAssertEqual(error.relayError?.cause, .connectionRefused)
            }
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 6)
        try await TestServers.proveDirectlyReachable(TestServers.originAAddress)
        try await TestServers.proveDirectlyReachable(TestServers.originBAddress)
        XCTAssertEqual(try TestServers.logLines(TestServers.originALog, containing: marker).count, 0, "origin A was reached")
        XCTAssertEqual(try TestServers.logLines(TestServers.originBLog, containing: marker).count, 0, "origin B was reached")
    }

    /// With `allowsDirectConnections` off, a host no configuration covers is refused, not
    /// fetched directly: origin B's address (reachable directly, as proven after) never sees it.
    func testUncoveredHostIsRefusedWhenDirectConnectionsAreNotAllowed() async throws {
        let marker = TestServers.marker("nodirect")
        var proxy = ProxyConfiguration(relayHops: [TestServers.relayHop()])
        proxy.matchDomains = ["origin.test"]
        var configuration = TestServers.configuration(hops: [])
        configuration.proxyConfigurations = [proxy]
        configuration.allowsDirectConnections = false
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        let url = URL(string: "https://\(TestServers.originBAddress)/index.html?\(marker)")!
        do {
            _ = try await session.data(from: url)
            XCTFail("\(url) must not load directly")
        } catch let error as FetchError {
            guard case .notRelayed(let host) = error.detail else { return XCTFail("\(error)") }
            XCTAssertEqual(host, TestServers.originBAddress)
        }
        _ = try await session.data(from: URL(string: "https://origin.test/index.html?\(marker)-covered")!)
        try await TestServers.proveDirectlyReachable(TestServers.originBAddress)
        XCTAssertEqual(try TestServers.logLines(TestServers.originBLog, containing: marker).count, 0, "origin B was reached")
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: "\(marker)-covered", skipping: 0).first?.first, "127.0.0.11")
    }

    /// A relay that accepts TCP but never answers: the chain gives up at the connect timeout.
    func testSilentRelayTimesOutWithinTheConnectTimeout() async throws {
        for relayProtocol in [RelayProtocol.automatic, .http1] { try await silentRelayTimesOut(relayProtocol) }
    }

    private func silentRelayTimesOut(_ relayProtocol: RelayProtocol) async throws {
        let listener = try SilentSocket(.tcp, host: "127.0.0.14")
        defer { listener.close() }
        let marker = TestServers.marker("silent-\(relayProtocol.rawValue)")
        let hop = TestServers.relayHop(url: URL(string: "https://127.0.0.14:\(listener.port)")!, relayProtocol: relayProtocol)
        let session = try Session(configuration: TestServers.configuration(hops: [hop], connectTimeout: 1))
        defer { session.invalidate() }
        let started = Date()
        do {
            _ = try await session.data(from: URL(string: "https://\(TestServers.originAAddress)/index.html?\(marker)")!)
            XCTFail("a silent relay must time out")
        } catch let error as FetchError {
            XCTAssertEqual(error.relayError?.hop.index, 1)
            XCTAssertEqual(error.relayError?.cause, .timeout)
        }
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertGreaterThan(elapsed, 0.9)
        XCTAssertLessThan(elapsed, 4)
        try await TestServers.proveDirectlyReachable(TestServers.originAAddress)
        XCTAssertEqual(try TestServers.logLines(TestServers.originALog, containing: marker).count, 0, "origin A was reached")
    }
}
