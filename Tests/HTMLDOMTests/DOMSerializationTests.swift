import Foundation
import XCTest
import HTMLDOM
import CSSStyle  // `select` picks the elements whose serialization is checked
import RelayFetchTestSupport

/// `HTMLDocument.domDump` and `outerHTML`: the serialized DOM as Chromium's `--dump-dom` prints
/// it, compared with real headless Chromium on the sample pages, and the tree repairs that give
/// libxml2's tree the HTML5 parser's shape.
final class DOMSerializationTests: XCTestCase {
    private static let pages = ["Samples/site/index.html", "Samples/site/about.html", "Samples/site/browser/index.html",
                                "Samples/site/full/index.html", "Samples/site/full/frame.html", "Samples/site/slow/index.html",
                                "Tests/HTMLDOMTests/Fixtures/dump-dom.html"]

    private func document(_ html: String) throws -> HTMLDocument {
        try XCTUnwrap(HTMLDocument(data: Data(html.utf8), url: URL(string: "https://origin.test/")!))
    }

    func testDumpIsWhatChromiumPrintsForTheSamplePages() throws {
        try XCTSkipUnless(ChromiumDump.isInstalled, "needs \(ChromiumDump.executable)")
        for path in Self.pages {
            let file = TestServers.repository.appendingPathComponent(path)
            let ours = try XCTUnwrap(HTMLDocument(data: try Data(contentsOf: file), url: file)).domDump + "\n"
            XCTAssertEqual(ours, try ChromiumDump.dom(of: file), path)
        }
    }

    func testOuterHTMLQuotesAttributesEscapesTextAndKeepsRawText() throws {
        let document = try document("""
            <p title='say "hi" & <go>'>a &lt; b &amp;&nbsp;c<br>d<input disabled></p><script>if (a < b && c) {}</script>
            """)
        XCTAssertEqual(document.select("p").first?.outerHTML,
                       "<p title=\"say &quot;hi&quot; &amp; &lt;go&gt;\">a &lt; b &amp;&nbsp;c<br>d<input disabled=\"\"></p>")
        XCTAssertEqual(document.select("script").first?.outerHTML, "<script>if (a < b && c) {}</script>")
    }

    func testDumpStartsWithTheDoctypeOnlyWhenThePageHasOne() throws {
        XCTAssertEqual(try document("<p>x").domDump, "<html><head></head><body><p>x</p></body></html>")
        XCTAssertEqual(try document("<!DOCTYPE HTML PUBLIC \"-//W3C//DTD HTML 4.01//EN\" \"http://www.w3.org/TR/html4/strict.dtd\"><title>t</title>").domDump,
                       "<!DOCTYPE html PUBLIC \"-//W3C//DTD HTML 4.01//EN\" \"http://www.w3.org/TR/html4/strict.dtd\">\n"
                       + "<html><head><title>t</title></head><body></body></html>")
    }

    /// The repairs are seen by selectors too, not only by the serializer.
    func testVoidElementsNoLongerHoldWhatFollowsThem() throws {
        let document = try document("""
            <picture><source srcset="a.png"><img src="b.png"></picture><p>a<wbr>b</p><p>c</p><video><track src="t.vtt"><source src="v.webm"></video>
            """)
        XCTAssertEqual(document.select("picture > img").count, 1)
        XCTAssertEqual(document.select("body > p").count, 2)
        XCTAssertEqual(document.select("video > source").count, 1)
        XCTAssertEqual(document.select("wbr, source, track").filter { !$0.children.isEmpty }.count, 0)
    }

    func testRowsGetATableBodyAndPreLosesItsFirstLineBreak() throws {
        let document = try document("<table><tr><td>1</td></tr>\n<tr><td>2</td></tr></table><pre>\nkept\n</pre>")
        XCTAssertEqual(document.select("table > tbody > tr").count, 2)
        XCTAssertEqual(document.select("pre").first?.outerHTML, "<pre>kept\n</pre>")
    }

    func testBareAttributesAreEmptyAsInBrowsers() throws {
        let document = try document("<input type=checkbox checked><option selected>x</option>")
        XCTAssertEqual(document.select("input").first?.attribute("checked"), "")
        XCTAssertEqual(document.select("option").first?.attribute("selected"), "")
        XCTAssertEqual(document.select(":checked").count, 2, "still checked and selected")
    }
}
