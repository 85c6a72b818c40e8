import XCTest
@testable import Crawler

/// Reading nofollow from robots metas and X-Robots-Tag values, without I/O.
final class RobotsDirectivesTests: XCTestCase {
    private let directives = RobotsDirectives(productToken: "RelayFetch")

    func testMetaNamesAndTokensAreCaseInsensitiveLists() {
        XCTAssertEqual(directives.metaNames, ["robots", "relayfetch"])
        XCTAssertEqual(directives.nofollow(headerValues: [], metas: [("ROBOTS", "NoIndex,NOFOLLOW")]), "meta robots")
        XCTAssertEqual(directives.nofollow(headerValues: [], metas: [("RelayFetch", " none ")]), "meta relayfetch")
        XCTAssertEqual(directives.nofollow(headerValues: [], metas: [("robots", "noarchive nofollow")]), "meta robots")
        XCTAssertNil(directives.nofollow(headerValues: [], metas: [("otherbot", "nofollow"), ("robots", "noindex, follow")]))
        XCTAssertNil(directives.nofollow(headerValues: [], metas: [("robots", "nofollowing, nonesuch")]), "whole tokens only")
    }

    func testHeaderAgentPrefixesApplyToTheirAgentOnly() {
        let cases: [(String, Bool)] = [
            ("nofollow", true), ("NONE", true), ("noindex, NoFollow", true),
            ("relayfetch: nofollow", true), ("RELAYFETCH: noindex, none", true),
            ("otherbot: nofollow", false), ("otherbot: noindex, nofollow", false),
            ("otherbot: nofollow, relayfetch: noarchive", false), ("otherbot: noindex, relayfetch: nofollow", true),
            ("unavailable_after: 25 Jun 2010 15:00:00 PST, nofollow", true), ("max-snippet: 20", false),
            ("noindex", false), ("", false),
        ]
        for (value, forbids) in cases { XCTAssertEqual(directives.headerForbidsFollowing(value), forbids, value) }
        XCTAssertEqual(directives.nofollow(headerValues: ["noarchive", "otherbot: none", "relayfetch: nofollow"], metas: []), "X-Robots-Tag")
        XCTAssertNil(directives.nofollow(headerValues: ["noarchive", "otherbot: none"], metas: []))
    }
}
