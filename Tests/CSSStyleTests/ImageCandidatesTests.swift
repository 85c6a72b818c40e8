import Foundation
import XCTest
@testable import CSSStyle
import HTMLDOM

/// One candidate per image for a viewport, and what browser mode takes from markup.
final class ImageCandidatesTests: XCTestCase {
    private func chosen(_ html: String, _ viewport: Viewport = Viewport()) -> [String] {
        let document = HTMLDocument(data: Data(html.utf8), url: URL(string: "https://site.test/")!)!
        return document.select("img").compactMap { ImageCandidates.choice(for: $0, media: MediaQuery(viewport: viewport)) }
    }

    func testDensityDescriptors() {
        let html = #"<img src="a.png" srcset="a-2x.png 2x, a-3x.png 3x">"#
        XCTAssertEqual(chosen(html), ["a.png"], "src is the 1x candidate")
        XCTAssertEqual(chosen(html, Viewport(width: 400, height: 800, devicePixelRatio: 2)), ["a-2x.png"])
        XCTAssertEqual(chosen(html, Viewport(width: 400, height: 800, devicePixelRatio: 2.6)), ["a-3x.png"], "above the geometric mean of 2 and 3")
        XCTAssertEqual(chosen(html, Viewport(width: 400, height: 800, devicePixelRatio: 2.3)), ["a-2x.png"], "below it")
        XCTAssertEqual(chosen(#"<img src="only.png">"#), ["only.png"])
    }

    func testWidthDescriptorsAndSizes() {
        let html = #"<img src="w.png" srcset="w400.png 400w, w800.png 800w, w1600.png 1600w" sizes="(max-width: 600px) 100vw, 500px">"#
        XCTAssertEqual(chosen(html), ["w800.png"], "500px slot at 1x: 400w is 0.8x, 800w is 1.6x")
        XCTAssertEqual(chosen(html, Viewport(width: 390, height: 844, devicePixelRatio: 3)), ["w1600.png"])
        XCTAssertEqual(chosen(#"<img srcset="n400.png 400w, n1600.png 1600w">"#), ["n1600.png"], "no sizes: 100vw")
        XCTAssertEqual(chosen(#"<img srcset="data:image/png;base64,AAA, x.png 2x">"#), ["data:image/png;base64,AAA"], "commas inside a URL")
    }

    func testPictureSources() {
        let html = """
            <picture><source srcset="p-print.png" media="print"><source srcset="p.jpx" type="image/jpx">
            <source srcset="p.avif" type="image/avif"><img src="p.png"></picture>
            """
        XCTAssertEqual(chosen(html), ["p.avif"])
        XCTAssertEqual(chosen(#"<picture><source srcset="wide.png" media="(min-width: 2000px)"><img src="fallback.png"></picture>"#), ["fallback.png"])
    }
}
