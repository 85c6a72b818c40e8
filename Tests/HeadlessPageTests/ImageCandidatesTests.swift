import Foundation
import XCTest
@testable import HeadlessPage

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

    func testBrowserModeMarkup() {
        let html = """
            <link rel="stylesheet" href="s.css"><link rel="stylesheet" href="p.css" media="print"><link rel="alternate stylesheet" href="alt.css">
            <link rel="stylesheet" href="off.css" disabled><link rel="alternate" href="feed.xml"><link rel="icon" href="a.ico"><link rel="icon" href="b.png">
            <link rel="apple-touch-icon" href="t.png"><link rel="manifest" href="m.json"><link rel="prefetch" href="next.html">
            <link rel="preload" as="font" href="f.woff2" crossorigin><link rel="preload" as="image" href="i.png"><link rel="preload" as="style" href="ps.css"><link rel="preload" as="fetch" href="d.json">
            <link rel="preload" as="script" href="s.js"><link rel="preload" as="video" href="v.mp4"><link rel="preload" as="document" href="d.html">
            <link rel="modulepreload" href="m.js"><script src="c.js"></script><style>@import "imp.css"; .x { background: url(later.png) }</style>
            <img src="lazy.png" loading="lazy"><img src="x1.png" srcset="x2.png 2x"><video src="v.webm" poster="poster.png">
            <track src="default.vtt" default><track src="other.vtt"></video><iframe src="f.html" width="200"></iframe>
            <div style="background: url(inline.png)"></div>
            """
        let document = HTMLDocument(data: Data(html.utf8), url: URL(string: "https://site.test/")!)!
        let references = SubresourceScanner.references(in: document, baseURL: URL(string: "https://site.test/")!, mode: .browser(Viewport()))
        XCTAssertEqual(references.map { $0.url.lastPathComponent }, [
            "s.css", "p.css", "alt.css", "a.ico", "m.json", "next.html", "f.woff2", "i.png", "ps.css", "d.json", "imp.css", "lazy.png", "x1.png",
            "v.webm", "poster.png", "default.vtt", "f.html",
        ])
        XCTAssertEqual(references.first { $0.kind == .frame }?.frameViewport, Viewport(width: 200, height: 150))
        XCTAssertEqual(references.filter { $0.kind == .preload }.map { "\($0.url.lastPathComponent) \($0.element ?? "")" },
                       ["ps.css preload-style", "d.json preload-fetch"], "a preloaded style sheet is fetched, not scanned for imports")
    }
}
