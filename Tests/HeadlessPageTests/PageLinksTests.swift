import Foundation
import XCTest
@testable import HeadlessPage
import HTMLDOM

/// `Page.links`: a, area and link hrefs, absolute against the base URL, each URL once with the
/// rel keywords of every element naming it.
final class PageLinksTests: XCTestCase {
    private func page(_ html: String) throws -> Page {
        let url = URL(string: "https://origin.test/dir/page.html")!
        let document = try XCTUnwrap(HTMLDocument(data: Data(html.utf8), url: url))
        return Page(url: url, statusCode: 200, headerFields: [], document: document,
                    main: PageResource(kind: .other, referrer: nil, exchange: .failed(url, startedAt: Date(), error: "not loaded")), resources: [], startedAt: Date(), loadTime: 0)
    }

    func testLinksAreAbsoluteDeduplicatedWithMergedRel() throws {
        let links = try page("""
            <link rel="stylesheet" href="a.css"><link rel="preload Stylesheet" href=" a.css ">
            <a href="/top">top</a><a rel="nofollow" href="https://origin.test/top">again</a><a href="#x">frag</a><a name="no-href">n</a>
            <map><area href="b c.html" rel="noopener"></map><a href="mailto:me@example.org">mail</a>
            """).links
        XCTAssertEqual(links.map(\.url.absoluteString), ["https://origin.test/dir/a.css", "https://origin.test/top", "https://origin.test/dir/page.html#x",
                                                         "https://origin.test/dir/b%20c.html", "mailto:me@example.org"])
        XCTAssertEqual(links.map(\.relations), [["stylesheet", "preload"], ["nofollow"], [], ["noopener"], []])
    }

    func testBaseElementSetsTheBase() throws {
        XCTAssertEqual(try page("<base href='https://other.test/b/'><a href='x'>x</a>").links.map(\.url.absoluteString), ["https://other.test/b/x"])
    }
}
