import Foundation
import XCTest
import RelayFetchTestSupport
@testable import Crawler

/// The page-level robots rules, end to end through relay A: pages that say nofollow (in a robots
/// meta, a meta named for us, or the X-Robots-Tag header, for every agent or for us) give no
/// link, while the same rules addressed to another agent, and rel="nofollow" on one link, do
/// not stop the crawl. What was fetched is read from the origin's log.
final class RobotsNofollowTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    /// Each parent page, its robots rule (HTML head, header lines), and whether its child is followed.
    private static let parents: [(name: String, head: String, headers: [String], followed: Bool)] = [
        ("meta", #"<meta name="ROBOTS" content="noindex, NoFollow">"#, [], false),
        ("meta-none", #"<meta name="RelayFetch" content="none">"#, [], false),
        ("meta-spaces", #"<meta name="robots" content="noarchive nofollow">"#, [], false),
        ("meta-other", #"<meta name="otherbot" content="nofollow">"#, [], true),
        ("meta-index", #"<meta name="robots" content="noindex, follow">"#, [], true),
        ("header", "", ["X-Robots-Tag: NOFOLLOW"], false),
        ("header-none", "", ["X-Robots-Tag: noarchive", "X-Robots-Tag: None"], false),
        ("header-ours", "", ["X-Robots-Tag: relayfetch: noindex, nofollow"], false),
        ("header-list", "", ["X-Robots-Tag: otherbot: noindex, RELAYFETCH: nofollow"], false),
        ("header-other", "", ["X-Robots-Tag: otherbot: nofollow"], true),
        ("header-other-none", "", ["X-Robots-Tag: otherbot: none, unavailable_after: 25 Jun 2010 15:00:00 PST"], true),
        ("rel", "", [], true),
    ]

    /// Writes each parent (linking to its child, rel="nofollow" on the rel page) and each child.
    private func makePages(_ site: CrawlSite) throws {
        for parent in Self.parents {
            let rel = parent.name == "rel" ? #" rel="nofollow""# : ""
            try site.addPage("nf/\(parent.name).html", "<html><head>\(parent.head)</head><body><a\(rel) href=\"\(parent.name)-child.html\">child</a></body></html>",
                             headers: parent.headers)
            try site.addPage("nf/\(parent.name)-child.html", "<html><body>child</body></html>")
        }
    }

    private func crawl(_ site: CrawlSite, obeyRobots: Bool) async throws -> [CrawlRecord] {
        let seeds = Self.parents.map { "\(site.origin)/nf/\($0.name).html" }
        return try await CrawlTestHarness.crawl(seeds) {
            $0.obeyRobots = obeyRobots
            $0.followsSitemaps = false
            $0.scope.maximumDepth = 1
        }.0
    }

    func testNofollowRulesForUsStopEveryLinkOfThePage() async throws {
        let site = try CrawlSite(pages: 1)
        try makePages(site)
        let records = try await crawl(site, obeyRobots: true)
        let fetched = Set(try site.requests().map(\.path))
        for parent in Self.parents {
            XCTAssertTrue(fetched.contains("/nf/\(parent.name).html"), "the seed \(parent.name) was fetched")
            XCTAssertEqual(fetched.contains("/nf/\(parent.name)-child.html"), parent.followed,
                           "\(parent.name): child \(parent.followed ? "followed" : "not followed")")
            let record = try XCTUnwrap(records.first { $0.url.hasSuffix("/nf/\(parent.name).html") })
            XCTAssertEqual(record.links.isEmpty, !parent.followed, "\(parent.name): no link read under nofollow")
            let rule = parent.headers.isEmpty ? (parent.head.contains("RelayFetch") ? "meta relayfetch" : "meta robots") : "X-Robots-Tag"
            XCTAssertEqual(record.nofollow, parent.followed ? nil : rule, "\(parent.name): the record names the rule")
        }
    }

    /// The control: with robots rules ignored, every child is fetched (the rules, not the pages,
    /// kept them out above).
    func testIgnoringRobotsFollowsEveryLink() async throws {
        let site = try CrawlSite(pages: 1)
        try makePages(site)
        _ = try await crawl(site, obeyRobots: false)
        let fetched = Set(try site.requests().map(\.path))
        XCTAssertEqual(Set(Self.parents.map { "/nf/\($0.name)-child.html" }).subtracting(fetched), [])
    }
}
