import Foundation
import XCTest
@testable import Crawler

/// robots.txt as RFC 9309 reads it, with the RFC's own examples.
final class RobotsRulesTests: XCTestCase {
    /// RFC 9309 section 5.1 ("Simple Example").
    let rfcExample = """
        User-Agent: *
        Disallow: *.gif$
        Disallow: /example/
        Allow: /publications/

        User-Agent: foobot
        Disallow:/
        Allow:/example/page.html
        Allow:/example/allowed.gif

        User-Agent: barbot
        User-Agent: bazbot
        Disallow: /example/page.html

        User-Agent: quxbot

        EOF
        """

    func rules(_ text: String, _ agent: String) -> RobotsRules { RobotsRules.parse(Data(text.utf8), productToken: agent) }

    func testRFCSimpleExampleGroups() {
        let star = rules(rfcExample, "unknownbot")
        XCTAssertFalse(star.allows("/example/page.html"))
        XCTAssertFalse(star.allows("/images/a.gif"))
        XCTAssertTrue(star.allows("/images/a.gif?x"), "$ anchors the end")
        XCTAssertTrue(star.allows("/publications/a.html"))
        XCTAssertTrue(star.allows("/other"))

        let foobot = rules(rfcExample, "FooBot")  // product tokens match case-insensitively
        XCTAssertFalse(foobot.allows("/"))
        XCTAssertFalse(foobot.allows("/example/other.html"))
        XCTAssertTrue(foobot.allows("/example/page.html"))
        XCTAssertTrue(foobot.allows("/example/allowed.gif"), "the group's own rules, not *'s *.gif$")

        for agent in ["barbot", "bazbot"] {  // one group, two user-agent lines
            let group = rules(rfcExample, agent)
            XCTAssertFalse(group.allows("/example/page.html"), agent)
            XCTAssertTrue(group.allows("/example/"), agent)
            XCTAssertTrue(group.allows("/images/a.gif"), agent)
        }
        XCTAssertTrue(rules(rfcExample, "quxbot").allows("/example/page.html"), "an empty group allows everything")
    }

    /// RFC 9309 section 5.2 ("Longest Match"): the longest pattern wins; allow wins a tie.
    func testLongestMatch() {
        let text = "User-Agent: foobot\nAllow: /example/page/\nDisallow: /example/page/disallowed.gif\n"
        let foobot = rules(text, "foobot")
        XCTAssertTrue(foobot.allows("/example/page/"))
        XCTAssertTrue(foobot.allows("/example/page/allowed.gif"))
        XCTAssertFalse(foobot.allows("/example/page/disallowed.gif"))
        let tie = rules("User-agent: *\nDisallow: /a\nAllow: /a\n", "x")
        XCTAssertTrue(tie.allows("/a"))
    }

    /// RFC 9309 2.2.3: `*` and `$`.
    func testSpecialCharacters() {
        let r = rules("User-agent: *\nDisallow: /*.php$\nDisallow: /fish*\nAllow: /fish/salmon.php$\nDisallow: /x*y*z\n", "bot")
        XCTAssertFalse(r.allows("/index.php"))
        XCTAssertFalse(r.allows("/a/b/c.php"))
        XCTAssertTrue(r.allows("/index.php?x=1"))
        XCTAssertTrue(r.allows("/index.php5"))
        XCTAssertFalse(r.allows("/fish"))
        XCTAssertFalse(r.allows("/fishheads/yummy.html"))
        XCTAssertTrue(r.allows("/fish/salmon.php"))
        XCTAssertTrue(r.allows("/Fish.asp"), "paths are case-sensitive")
        XCTAssertFalse(r.allows("/x-big-y-and-z"))
        XCTAssertTrue(r.allows("/x-big-y-and"))
    }

    /// RFC 9309 2.2.2: percent-encoding compared normalized; /robots.txt is always allowed.
    func testPercentEncodingAndRobotsTxtItself() {
        let r = rules("User-agent: *\nDisallow: /foo/bar/%62%61%7A\nDisallow: /ツ\nDisallow: /\n", "bot")
        XCTAssertTrue(r.allows("/robots.txt"))
        let narrow = rules("User-agent: *\nDisallow: /foo/bar/%62%61%7A\nDisallow: /%E3%83%84\n", "bot")
        XCTAssertFalse(narrow.allows("/foo/bar/baz"))
        XCTAssertFalse(narrow.allows("/foo/bar/%62az"))
        XCTAssertFalse(narrow.allows("/%e3%83%84"))
        XCTAssertTrue(narrow.allows("/foo/bar/ba"))
        let utf8 = rules("User-agent: *\nDisallow: /ツ\n", "bot")
        XCTAssertFalse(utf8.allows("/%E3%83%84"), "a UTF-8 pattern matches its percent-encoded path")
    }

    func testCommentsEmptyDisallowCrawlDelayAndSitemaps() {
        let text = """
            # comment
            Sitemap: https://example.com/sitemap.xml
            user-agent: relayfetch # us
            disallow:
            crawl-delay: 1.5
            User-agent: *
            Disallow: /
            """
        let r = rules(text, "relayfetch")
        XCTAssertTrue(r.allows("/anything"), "an empty Disallow matches nothing")
        XCTAssertEqual(r.crawlDelay, 1.5)
        XCTAssertEqual(r.sitemaps, ["https://example.com/sitemap.xml"])
        XCTAssertFalse(rules(text, "otherbot").allows("/anything"))
        XCTAssertNil(rules(text, "otherbot").crawlDelay)
    }

    func testRulesBeforeAnyUserAgentAreIgnoredAndGroupsCombine() {
        let text = "Disallow: /orphan\nUser-agent: a\nDisallow: /one\nUser-agent: b\nDisallow: /two\nUser-agent: a\nDisallow: /three\n"
        let a = rules(text, "a")
        XCTAssertTrue(a.allows("/orphan"))
        XCTAssertFalse(a.allows("/one"))
        XCTAssertFalse(a.allows("/three"), "groups for the same agent combine")
        XCTAssertTrue(a.allows("/two"))
    }

    func testStatusPoliciesAndSizeLimit() {
        XCTAssertTrue(RobotsRules.allowAll.allows("/x"))
        XCTAssertFalse(RobotsRules.disallowAll.allows("/x"))
        XCTAssertTrue(RobotsRules.disallowAll.allows("/robots.txt"))
        // A rule past 500 KiB is not read.
        let padding = String(repeating: "# padding line\n", count: RobotsRules.sizeLimit / 15 + 10)
        let big = rules("User-agent: *\nDisallow: /early\n" + padding + "Disallow: /late\n", "bot")
        XCTAssertFalse(big.allows("/early"))
        XCTAssertTrue(big.allows("/late"))
    }
}
