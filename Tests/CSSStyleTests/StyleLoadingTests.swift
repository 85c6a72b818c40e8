import Foundation
import XCTest
@testable import CSSStyle
import HTMLDOM

/// What a document's styles load in browser mode: images of rendered boxes whose winning
/// declarations name them, and the font faces their text needs.
final class StyleLoadingTests: XCTestCase {
    private let base = URL(string: "https://site.test/p/index.html")!

    /// The images and fonts (paths) for `html` with sheets at https://site.test/p/NAME.
    private func needs(_ html: String, sheets: [String: String] = [:], viewport: Viewport = Viewport()) -> (images: [String], fonts: [String]) {
        let document = HTMLDocument(data: Data(html.utf8), url: base)!
        var loaded: [URL: DocumentStyleSheets.Loaded] = [:]
        for (name, text) in sheets {
            let url = URL(string: name, relativeTo: base)!.absoluteURL
            loaded[url] = DocumentStyleSheets.Loaded(url: url, text: text)
        }
        let media = MediaQuery(viewport: viewport)
        let cascade = DocumentStyleSheets(media: media, loaded: loaded, importDepth: 8).sheets(of: document, baseURL: base).sheets
        let found = StyleResolver(sheets: cascade, viewport: viewport).needs(of: document, baseURL: base)
        return (found.images.map(\.url.path), found.fonts.map(\.url.path))
    }

    func testImagesOnlyForRulesThatWinOnRenderedBoxes() {
        let css = """
            .used { background: url(used.png) } .unused { background: url(unused.png) }
            .over { background: url(overridden.png) } .over { background: none }
            #id.over { background-image: url(specific.png) } div.over { background-image: url(less-specific.png) !important }
            .none { display: none; background: url(none-self.png) } .none .child { background: url(child-of-none.png) }
            .hov:hover { background: url(hover.png) } ul { list-style-image: url(list.png) } .cur { cursor: url(cursor.png), auto }
            .b { border-image: url(border.png) 30 round } .m { -webkit-mask-image: url(mask.png) }
            .p::before { content: url(before-content.png) } .p::after { content: ""; background: url(after-bg.png) }
            .q::before { background: url(no-content.png) }
            .v { --icon: url(from-variable.png); background-image: var(--icon) }
            .set { background-image: image-set(url(set-1x.png) 1x, url(set-2x.png) 2x) }
            """
        let html = """
            <link rel="stylesheet" href="s.css"><div class="used"></div><div id="id" class="over"></div>
            <div class="none"><span class="child"></span></div><div class="hov"></div><ul><li>a</li></ul><div class="cur"></div>
            <div class="b"></div><div class="m"></div><div class="p"></div><div class="q"></div><div class="v"></div><div class="set"></div>
            <div style="background: url(inline.png)"></div><head hidden><div hidden style="background: url(hidden.png)"></div></head>
            """
        XCTAssertEqual(Set(needs(html, sheets: ["s.css": css]).images), Set([
            "/p/used.png", "/p/less-specific.png", "/p/list.png", "/p/cursor.png", "/p/border.png", "/p/mask.png",
            "/p/before-content.png", "/p/after-bg.png", "/p/from-variable.png", "/p/set-1x.png", "/p/inline.png",
        ]))
        XCTAssertEqual(needs(html, sheets: ["s.css": css], viewport: Viewport(width: 1280, height: 800, devicePixelRatio: 2)).images
            .filter { $0.contains("set-") }, ["/p/set-2x.png"])
    }

    func testMediaSupportsImportsAndSheetsThatDoNotApply() {
        let html = """
            <link rel="stylesheet" href="main.css"><link rel="stylesheet" href="print.css" media="print">
            <link rel="alternate stylesheet" href="alt.css" title="alt"><link rel="stylesheet" href="off.css" disabled>
            <style media="(max-width: 600px)">.x { background: url(style-narrow.png) }</style><div class="x"></div>
            """
        let sheets = [
            "main.css": """
                @import url(imp-print.css) print; @import "imp-screen.css" screen;
                @media (min-width: 1000px) { .x { background: url(wide.png) } }
                @media (max-width: 600px) { .x { background: url(narrow.png) } }
                @supports (display: frobnicate) { .x { border-image: url(unsupported.png) } }
                @supports (display: grid) { .x { cursor: url(supported.png), auto } }
                """,
            "imp-print.css": ".x { list-style-image: url(imp-print.png) }",
            "imp-screen.css": ".x { list-style-image: url(imp-screen.png) }",
            "print.css": ".x { -webkit-mask-image: url(print.png) }", "alt.css": ".x { mask-image: url(alt.png) }",
            "off.css": ".x { mask-image: url(off.png) }",
        ]
        XCTAssertEqual(Set(needs(html, sheets: sheets).images), ["/p/wide.png", "/p/supported.png", "/p/imp-screen.png"])
        XCTAssertEqual(Set(needs(html, sheets: sheets, viewport: Viewport(width: 400, height: 800)).images),
                       ["/p/style-narrow.png", "/p/supported.png", "/p/imp-screen.png"], "the later <style> wins over narrow.png")
    }

    func testOnlyThePreferredStyleSheetSetApplies() {
        let sheets = ["a.css": ".x { background: url(a.png) }", "b.css": ".x { border-image: url(b.png) }",
                      "c.css": ".x { cursor: url(c.png), auto }"]
        let html = """
            <link rel="stylesheet" href="a.css" title="Blue"><link rel="stylesheet" href="b.css" title="Red">
            <link rel="stylesheet" href="c.css"><div class="x"></div>
            """
        XCTAssertEqual(Set(needs(html, sheets: sheets).images), ["/p/a.png", "/p/c.png"], "the first title names the set")
        XCTAssertEqual(Set(needs("<meta http-equiv='Default-Style' content='Red'>" + html, sheets: sheets).images), ["/p/b.png", "/p/c.png"])
    }

    /// Found by the style-cascade fuzz target: an `@import url(` without its `)` trapped.
    func testUnclosedImportURLIsNoCrash() {
        let sheet = StyleSheet(parsing: "@import url(import-print.css) print;\n@import url(im@imapo.", media: MediaQuery(viewport: Viewport()))
        XCTAssertEqual(sheet.imports, [StyleSheet.Import(url: "import-print.css", media: "print"), StyleSheet.Import(url: "im@imapo.", media: "")])
    }

    func testFontFacesChosenAsCSSFonts4Matches() {
        let css = """
            @font-face { font-family: Body; src: url(body.eot); src: url(body.eot?#iefix) format("embedded-opentype"), url(body.woff2) format("woff2"), url(body.woff) format("woff"); }
            @font-face { font-family: Body; font-weight: 700; src: url(body-bold.svg#x) format("svg"), url(body-bold.ttf) format("truetype"); }
            @font-face { font-family: Body; font-style: italic; src: url(body-italic.woff2) format("woff2"); }
            @font-face { font-family: Body; font-weight: 900; src: url(body-black.woff2) format("woff2"); }
            @font-face { font-family: Unused; src: url(unused.woff2) format("woff2"); }
            @font-face { font-family: Hidden; src: url(hidden.woff2) format("woff2"); }
            @font-face { font-family: Icons; src: url(icons.woff2) format("woff2"); }
            @font-face { font-family: Local; src: local("DejaVu Sans"), url(local.woff2) format("woff2"); }
            @font-face { font-family: Cyrillic; src: url(cyrillic.woff2); unicode-range: U+0400-045F; }
            @font-face { font-family: Cyrillic; src: url(latin.woff2); unicode-range: U+0000-00FF; }
            body { font-family: "Body", serif } .hidden { display: none; font-family: Hidden }
            .icon::before { font-family: Icons; content: "\\f015" } .local { font-family: Local, Unused } .cy { font-family: Cyrillic }
            .semi { font-weight: 600 }
            """
        let html = """
            <meta charset="utf-8"><link rel="stylesheet" href="f.css"><p>text <b>bold</b> <em>it</em></p><div class="hidden">hidden</div>
            <span class="icon"></span><p class="local">x</p><p class="cy">Привет</p>
            """
        XCTAssertEqual(Set(needs(html, sheets: ["f.css": css]).fonts),
                       ["/p/body.woff2", "/p/body-bold.ttf", "/p/body-italic.woff2", "/p/icons.woff2", "/p/cyrillic.woff2"])
        // 600 has no face of its own: weights above 500 look upwards first (700).
        XCTAssertEqual(needs("<link rel=stylesheet href=f.css><p class=semi>x</p>", sheets: ["f.css": css]).fonts, ["/p/body-bold.ttf"])
        XCTAssertEqual(needs("<link rel=stylesheet href=f.css><p style='font: italic bold 12px/1.2 Body, serif'>x</p>",
                             sheets: ["f.css": css]).fonts, ["/p/body-italic.woff2"], "italic wins over weight: no bold italic face")
        XCTAssertEqual(needs("<link rel=stylesheet href=f.css><p>  </p><input placeholder='find'>", sheets: ["f.css": css]).fonts, [],
                       "whitespace draws no glyph; a control's placeholder uses the control font (system-ui)")
    }
}
