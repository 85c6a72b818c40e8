import Foundation
import XCTest
@testable import HeadlessPage
import HTMLDOM
import CSSStyle

final class SubresourceScannerTests: XCTestCase {
    private func urls(_ html: String, base: String = "https://site.test/dir/page.html") -> [String] {
        let document = HTMLDocument(data: Data(html.utf8), url: URL(string: base)!)!
        return SubresourceScanner.references(in: document, baseURL: URL(string: base)!).map(\.url.absoluteString)
    }

    func testBaseHrefEntitiesAndSrcset() {
        XCTAssertEqual(urls("""
            <base href="https://cdn.test/assets/"><img src="a.png?x=1&amp;y=2" srcset="b.png 1x,  c.png 2x">
            <picture><source srcset="d.webp 800w, e.webp"><img src="f.png"></picture>
            """), ["https://cdn.test/assets/a.png?x=1&y=2", "https://cdn.test/assets/b.png", "https://cdn.test/assets/c.png",
                   "https://cdn.test/assets/d.webp", "https://cdn.test/assets/e.webp", "https://cdn.test/assets/f.png"])
    }

    func testNeverLinksFormsCanonicalAlternateDataOrScriptStrings() {
        XCTAssertEqual(urls("""
            <link rel="canonical" href="/c"><link rel="alternate" href="/feed"><link rel="alternate stylesheet" href="/alt.css">
            <a href="/next">n</a><form action="/post"></form><img src="data:image/png;base64,AAAA">
            <script>var u = "/from-script.png";</script><svg><use href="#local"/></svg><img src="javascript:void(0)">
            <link rel="stylesheet" href="/real.css">
            """), ["https://site.test/real.css"])
    }

    func testEveryElementKind() {
        let found = Set(urls("""
            <script type="module" src="m.js"></script><link rel="modulepreload" href="mp.js"><link rel="preload" as="font" href="f.woff2">
            <link rel="icon" href="i.ico"><link rel="apple-touch-icon" href="t.png"><link rel="manifest" href="m.json">
            <style>@import 'imp.css'; .a { background: url( "bg.png" ) }</style><div style="background:url(st.png)"></div>
            <iframe src="fr.html"></iframe><frame src="fr2.html"><video src="v.mp4" poster="p.jpg"><track src="t.vtt"></video>
            <audio src="a.mp3"></audio><object data="o.svg"></object><embed src="e.svg"><input type="image" src="btn.png">
            <svg><image href="si.png"/><use xlink:href="sprite.svg#x"/></svg>
            """).map { $0.replacingOccurrences(of: "https://site.test/dir/", with: "") })
        XCTAssertEqual(found, ["m.js", "mp.js", "f.woff2", "i.ico", "t.png", "m.json", "imp.css", "bg.png", "st.png", "fr.html",
                               "fr2.html", "v.mp4", "p.jpg", "t.vtt", "a.mp3", "o.svg", "e.svg", "btn.png", "si.png", "sprite.svg"])
    }

    func testCSSReferences() {
        let css = """
            @import url("a.css"); @IMPORT 'b.css' screen;
            /* url(commented.png) */
            @font-face { src: url(f.woff2) format("woff2"), url('f.woff') format("woff"); }
            .x { background: url( spaced.png ) , url("q\\"uote.png"); }
            .y { --not-a-url: myurl(no.png); }
            """
        XCTAssertEqual(CSSURLScanner.references(in: css).map { "\($0.url)\($0.isImport ? "!" : "")" },
                       ["a.css!", "b.css!", "f.woff2", "f.woff", "spaced.png", "q\"uote.png"])
    }

    /// Found by the css-urls fuzz target: `@import ""` gave an empty reference (the sheet itself).
    func testEmptyImportsAndURLsAreNoReferences() {
        let css = "@import \"\"; @import ''; @import url(); @import url(\"\"); .a { background: url('') } @import \"real.css\";"
        XCTAssertEqual(CSSURLScanner.references(in: css).map { "\($0.url)\($0.isImport ? "!" : "")" }, ["real.css!"])
    }

    /// Found by the html-urls fuzz target: `https:/x` resolved to a URL without a host.
    func testURLsWithoutAHostAreNoReferences() {
        let base = URL(string: "https://origin.test/dir/page.html")!
        for text in ["https:/div style=", "http:x.png", "https:", "https:///path"] {
            XCTAssertNil(SubresourceURL.resolve(text, against: base), text)
        }
        XCTAssertEqual(SubresourceURL.resolve("/x.png", against: base)?.absoluteString, "https://origin.test/x.png")
    }

    func testCharsetFromHeaderAndFromMeta() {
        let latin1 = Data([0x3C, 0x70, 0x3E, 0xE9, 0x74, 0xE9, 0x3C, 0x2F, 0x70, 0x3E])  // <p>été</p> in ISO-8859-1
        let fromHeader = HTMLDocument(data: latin1, url: URL(string: "https://x.test/")!, charset: "iso-8859-1")!
        XCTAssertEqual(fromHeader.xpath("//p").first?.text, "été")
        let withMeta = Data("<html><head><meta charset=\"iso-8859-1\"></head><body><p>".utf8) + Data([0xE9, 0x74, 0xE9]) + Data("</p></body></html>".utf8)
        XCTAssertEqual(HTMLDocument(data: withMeta, url: URL(string: "https://x.test/")!)!.xpath("//p").first?.text, "été")
        let bom = Data([0xEF, 0xBB, 0xBF]) + Data("<p>ünï</p>".utf8)
        XCTAssertEqual(HTMLDocument(data: bom, url: URL(string: "https://x.test/")!, charset: nil)!.xpath("//p").first?.text, "ünï")
    }

    func testSelectorsAndXPath() {
        let document = HTMLDocument(data: Data("""
            <div id="main" class="box wide"><p class="note">one</p><a href="/x" rel="next">x</a></div><p>two</p>
            """.utf8), url: URL(string: "https://x.test/")!)!
        XCTAssertEqual(document.select("p").map(\.text), ["one", "two"])
        XCTAssertEqual(document.select("#main .note").map(\.text), ["one"])
        XCTAssertEqual(document.select("div.box.wide a[rel=next]").first?.attribute("href"), "/x")
        XCTAssertEqual(document.select("a[href]").count, 1)
        XCTAssertEqual(document.xpath("//p[not(@class)]").first?.text, "two")
        XCTAssertTrue(document.xpath("//[").isEmpty, "invalid XPath gives no elements, not a crash")
    }

    func testMetaRefreshTarget() {
        let document = HTMLDocument(data: Data("<meta http-equiv=\"Refresh\" content=\"0; URL='/moved.html'\">".utf8),
                                    url: URL(string: "https://x.test/a/")!)!
        XCTAssertEqual(MetaRefresh.target(in: document, base: URL(string: "https://x.test/a/")!)?.absoluteString, "https://x.test/moved.html")
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
