import Foundation
import XCTest
import RelayFetch
import RelayFetchTestSupport
@testable import Crawler

/// Page requisites loaded with each page, through the page's relay chain only: a requisite on a
/// host no relay configuration covers is refused, never fetched directly (the origin's log,
/// which also answers to its IP literal, would show it).
final class CrawlRequisitesTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testRequisitesComeThroughThePagesChainAndAnUncoveredHostIsRefused() async throws {
        let site = try CrawlSite(pages: 3)
        try site.addPageWithRequisites()
        var covered = ProxyConfiguration(relayHops: CrawlTestHarness.relayA)
        covered.matchDomains = ["origin.test"]
        var configuration = TestServers.configuration(hops: CrawlTestHarness.relayA)
        configuration.proxyConfigurations = [covered]
        let (records, progress) = try await CrawlTestHarness.crawl([site.origin + "/req/index.html"], sessionConfigurations: [configuration]) {
            $0.loadsRequisites = true
            $0.scope.maximumDepth = 0
            $0.followsSitemaps = false
        }
        let page = try XCTUnwrap(records.first { $0.url.hasSuffix("/req/index.html") })
        let requisites = try XCTUnwrap(page.requisites)
        XCTAssertEqual(Set(requisites.filter { $0.status == 200 }.map(\.url)), Set(["style.css", "img.png", "bg.png"].map { site.origin + "/req/" + $0 }))
        let refused = try XCTUnwrap(requisites.first { $0.url.contains("127.0.0.21") })
        XCTAssertNil(refused.status)
        XCTAssertTrue(refused.error?.contains("no relay configuration covers 127.0.0.21") == true, refused.error ?? "")
        // The page and its three requisites, as sized by the origin that sent them.
        let sent = try site.responses().filter { $0.path.hasPrefix("/req/") }
        XCTAssertEqual(Set(sent.map(\.path)), ["/req/index.html", "/req/style.css", "/req/img.png", "/req/bg.png"])
        XCTAssertEqual(sent.map(\.bytes).sorted(), [32, 1000, 1000, page.bytes].sorted())
        XCTAssertEqual(progress.bytesThisRun, sent.map(\.bytes).reduce(0, +), "requisites count toward the bytes")
        let requests = try site.requests()
        XCTAssertEqual(Set(requests.map(\.path)), ["/robots.txt", "/req/index.html", "/req/style.css", "/req/img.png", "/req/bg.png"])
        XCTAssertEqual(Set(requests.map(\.peer)), ["127.0.0.11"], "every requisite came through relay A")
        XCTAssertFalse(requests.contains { $0.headerLines.contains { $0.lowercased().hasPrefix("host: 127.0.0.21") } })
    }
}
