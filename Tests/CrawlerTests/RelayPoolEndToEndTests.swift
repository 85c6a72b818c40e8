import Foundation
import XCTest
import RelayFetch
import RelayFetchTestSupport
@testable import Crawler

/// A crawl through a pool of relay chains: hosts move off a chain whose relay is down, and with
/// every chain down nothing reaches the origin. Checked on the origin's own log.
final class RelayPoolEndToEndTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testHostsMoveOffADeadChainAndEveryPageArrivesOnceThroughTheLiveOne() async throws {
        let site = try CrawlSite(pages: 30)
        let dead = [TestServers.relayHop(url: TestServers.deadRelayURL)]
        // The dead chain comes first, so the host starts on it.
        let (records, progress) = try await CrawlTestHarness.crawl([site.origin + "/"], chains: [dead, CrawlTestHarness.relayA], chainBackoff: 30)
        let counts = try site.pageFetchCounts()
        XCTAssertEqual(Set(counts.keys), Set(try site.expectedPaths()))
        XCTAssertEqual(counts.values.filter { $0 != 1 }, [])
        XCTAssertEqual(Set(try site.requests().map(\.peer)), ["127.0.0.11"])
        XCTAssertEqual(Set(records.filter { $0.outcome == .fetched }.map(\.relayChain)), [["127.0.0.11:3129"]])
        XCTAssertEqual(records.first { $0.url == site.origin + "/" }?.attempts, 2, "the seed's first try met the dead chain")
        XCTAssertEqual(progress.relayChains, 2)
        XCTAssertEqual(progress.relayChainsUp, 1)
    }

    func testEveryChainDownReachesNothingAndSaysWhy() async throws {
        let site = try CrawlSite(pages: 5)
        let chains = [[TestServers.relayHop(url: TestServers.deadRelayURL)], [TestServers.relayHop(url: URL(string: "https://127.0.0.13:3130")!)]]
        let (records, _) = try await CrawlTestHarness.crawl([site.origin + "/"], chains: chains, chainBackoff: 0.1) { $0.relayWait = 1 }
        XCTAssertEqual(records.map(\.outcome), [.failed])
        let error = records.first?.error ?? ""
        XCTAssertTrue(error.contains("every relay chain for origin.test is down (chain 1 (127.0.0.13:3129): hop 1 (127.0.0.13:"), error)
        XCTAssertTrue(error.contains("; chain 2 (127.0.0.13:3130): hop 1 (127.0.0.13:"), error)
        XCTAssertLessThanOrEqual(records.first?.attempts ?? 0, 2, "waiting for a chain spends no retry")
        XCTAssertEqual(try site.requests().count, 0, "nothing reached the origin")
        _ = try await CrawlTestHarness.crawl([site.origin + "/"]) { $0.maximumPages = 1 }
        XCTAssertGreaterThan(try site.requests().count, 0, "the origin's log is live")
    }

    /// A host that no chain's domains cover is not fetched at all, though a session would fetch
    /// it directly: the IP-literal seed names the same origin (its certificate has the address),
    /// so a direct fetch would show in its log as a request from 127.0.0.1 for Host 127.0.0.21.
    func testHostNoChainCoversIsNeverFetchedDirectly() async throws {
        let site = try CrawlSite(pages: 5)
        let literal = "https://127.0.0.21:\(site.server.port)"
        var covered = ProxyConfiguration(relayHops: CrawlTestHarness.relayA)
        covered.matchDomains = ["origin.test"]
        var configuration = TestServers.configuration(hops: CrawlTestHarness.relayA)
        configuration.proxyConfigurations = [covered]
        let (records, progress) = try await CrawlTestHarness.crawl([site.origin + "/", literal + "/pages/page-1.html"],
                                                                   sessionConfigurations: [configuration])
        let refused = try XCTUnwrap(records.first { $0.url.hasPrefix(literal) })
        XCTAssertEqual(refused.outcome, .failed)
        XCTAssertEqual(refused.attempts, 1, "not retried: no chain will ever cover it")
        XCTAssertTrue(refused.error?.contains("no relay chain covers 127.0.0.21") == true, refused.error ?? "")
        let requests = try site.requests()
        XCTAssertEqual(Set(requests.map(\.path)).subtracting(["/robots.txt"]), Set(try site.expectedPaths()), "the covered host was crawled")
        XCTAssertEqual(Set(requests.map(\.peer)), ["127.0.0.11"], "every request came through relay A")
        XCTAssertFalse(requests.contains { $0.headerLines.contains { $0.lowercased().hasPrefix("host: 127.0.0.21") } })
        XCTAssertEqual(progress.chains.map(\.pages), [try site.expectedPaths().count])
    }

    func testSessionsThatMayConnectDirectlyAreRefused() throws {
        let session = try Session(configuration: TestServers.configuration(hops: CrawlTestHarness.relayA))
        defer { session.invalidate() }
        XCTAssertThrowsError(try Crawler(configuration: CrawlConfiguration(scope: try CrawlScope()), session: session,
                                         store: try SQLiteCrawlStore(path: nil))) { error in
            XCTAssertTrue("\(error)".contains("allowsDirectConnections = false"), "\(error)")
        }
    }
}
