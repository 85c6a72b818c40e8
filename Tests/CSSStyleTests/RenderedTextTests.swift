import Foundation
import XCTest
@testable import CSSStyle
import HTMLDOM

/// `HTMLElement.innerText`: readable text with the block structure kept, as a browser's
/// `innerText` gives it with the default style sheet.
final class RenderedTextTests: XCTestCase {
    private func text(_ html: String, _ selector: String = "body") throws -> String {
        let document = try XCTUnwrap(HTMLDocument(data: Data(html.utf8), url: URL(string: "https://origin.test/")!))
        return try XCTUnwrap(document.select(selector).first).innerText
    }

    func testBlocksGetLinesOfTheirOwnAndParagraphsABlankLine() throws {
        XCTAssertEqual(try text("""
            <h1>  Title\n here </h1><p>First   <b>bold</b>
            paragraph.</p><p>Second</p><ul><li>one</li><li> two </li></ul><div>a<span> b </span>c</div>
            """), "Title here\n\nFirst bold paragraph.\n\nSecond\n\none\ntwo\na b c")
    }

    func testLineBreaksCellsAndPreformattedText() throws {
        XCTAssertEqual(try text("<p>one<br>two</p><table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table><pre>  x\n   y</pre>"),
                       "one\ntwo\n\na\tb\n1\t2\n  x\n   y")
    }

    func testWhatIsNotRenderedIsLeftOut() throws {
        XCTAssertEqual(try text("""
            <head><title>not body</title><style>p{}</style></head><body><script>var x = 1;</script><p>shown</p>
            <div hidden>hidden</div><span style="color: red; display : none">styled away</span><template>t</template>
            <input type=hidden value=v><noscript>no scripts here</noscript></body>
            """), "shown\n\nno scripts here")
    }

    func testTextOfOneElement() throws {
        XCTAssertEqual(try text("<h1>relayfetch <small>sample</small>\n site</h1>", "h1"), "relayfetch sample site")
        XCTAssertEqual(try text("<title>a  title</title>", "title"), "a  title", "not rendered: its text content")
    }
}
