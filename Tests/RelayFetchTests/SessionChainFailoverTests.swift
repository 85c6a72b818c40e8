import Foundation
import XCTest
import RelayFetch
import RelayFetchTestSupport

/// A session whose relay configurations are chains of a pool (`RelayChainPolicy.failover`), as a
/// crawl's `--chain`s are: a chain whose relay is down is rested and requests go through the
/// next, checked on the origin's own log; with every chain down, nothing reaches the origin.
/// The dead relays are addresses of this suite's range (127.0.21.0/24) where nothing listens.
final class SessionChainFailoverTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    static let deadRelays = [URL(string: "https://127.0.21.1:3129")!, URL(string: "https://127.0.21.2:3129")!]

    /// Chain 1 (a dead relay) covers the host first; the request is sent again through chain 2
    /// (relay A), and the next request for the host goes there at once (chain 1 rests).
    func testARequestFailsOverFromADeadChainToTheNextAndTheHostStaysThere() async throws {
        var configuration = TestServers.configuration(hops: [])
        configuration.proxyConfigurations = [ProxyConfiguration(relayHops: [TestServers.relayHop(url: Self.deadRelays[0])]),
                                             ProxyConfiguration(relayHops: [TestServers.relayHop()])]
        configuration.relayChainPolicy = .failover(rest: 30)
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        let marker = TestServers.marker("session-failover")
        for attempt in 1...2 {
            let (_, response) = try await session.data(from: URL(string: "https://origin.test/index.html?\(marker)-\(attempt)")!)
            XCTAssertEqual(response.statusCode, 200)
            XCTAssertEqual(response.relayHops, ["127.0.0.11:3129"], "attempt \(attempt)")
            let lines = try TestServers.waitForLogLines(TestServers.originALog, containing: "\(marker)-\(attempt)", skipping: 0)
            XCTAssertEqual(lines.map { $0.first }, ["127.0.0.11"], "the origin saw chain 2's relay, once")
        }
    }

    /// Every chain down: the first request tries both chains (its error names the second), the
    /// next ones fail at once with a relay failure, and origin A's address (which a direct
    /// connection reaches, as proven first) sees nothing.
    func testEveryChainDownFailsClosed() async throws {
        try await TestServers.proveDirectlyReachable(TestServers.originAAddress)
        var configuration = TestServers.configuration(hops: [])
        configuration.proxyConfigurations = Self.deadRelays.map { ProxyConfiguration(relayHops: [TestServers.relayHop(url: $0)]) }
        configuration.relayChainPolicy = .failover(rest: 30)
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        let marker = TestServers.marker("session-all-down")
        var failed: [String] = []
        for _ in 1...3 {
            do {
                _ = try await session.data(from: URL(string: "https://\(TestServers.originAAddress)/index.html?\(marker)")!)
                XCTFail("loaded with every relay down")
            } catch let error as FetchError {
                XCTAssertEqual(error.relayError?.cause, .connectionRefused, "\(error)")
                failed.append(error.relayError?.hop.endpoint ?? "\(error)")
            }
        }
        XCTAssertEqual(failed.first, "127.0.21.2:3129", "the first request went through both chains")
        XCTAssertTrue(failed.allSatisfy { $0.hasPrefix("127.0.21.") }, "\(failed)")
        try await Task.sleep(nanoseconds: 500_000_000)
        XCTAssertEqual(try TestServers.logLines(TestServers.originALog, containing: marker).count, 0, "origin A was reached")
    }
}
