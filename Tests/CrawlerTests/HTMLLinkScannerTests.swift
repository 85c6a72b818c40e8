import Foundation
import XCTest
@testable import Crawler

/// The one-pass link scanner finds what libxml2's full parse finds, on tricky markup and on the
/// generated crawl site, and declines what it cannot read alone.
final class HTMLLinkScannerTests: XCTestCase {
    private let url = URL(string: "https://example.com/dir/page.html")!

    private func both(_ html: String, metaNames: Set<String> = []) -> (scanned: HTMLLinks?, parsed: HTMLLinks) {
        let data = Data(html.utf8)
        return (data.withUnsafeBytes { HTMLLinkScanner.scan($0, metaNames: metaNames) }, LinkExtractor.parsed(data, url: url, charset: nil, metaNames: metaNames))
    }

    func testAgreesWithLibXML2OnTrickyMarkup() throws {
        let html = """
            <!DOCTYPE html><html><head><BASE HREF='/base/'><title>a page</title>
            <link rel="stylesheet" href="style.css"><link rel="Canonical Alternate" href=canon.html>
            <script>document.write('<a href="no-script.html">')</script><style>a[href="no-style"]{}</style>
            </head><body><!-- <a href="no-comment.html"> --><a HREF = "one.html?a=1&amp;b=2&#38;c=3">1</a>
            <a href='two.html' href="ignored.html">2</a><a href=three.html>3</a><A
            href="four.html"
            >4</A><area shape=rect href="/area.html"><iframe src="frame.html"></iframe><frame src=f2.html>
            <a name="no-href">x</a><a href="#top">top</a><a href="">self</a>
            <a href="five.html"/><a data-href="no.html" href="six.html">6</a><a href="&#x2F;seven.html">7</a>
            </body></html>
            """
        let (scanned, parsed) = both(html)
        let result = try XCTUnwrap(scanned)
        XCTAssertEqual(result.base, parsed.base)
        XCTAssertEqual(result.references, parsed.references)
        XCTAssertEqual(result.references, ["canon.html", "one.html?a=1&b=2&c=3", "two.html", "three.html", "four.html", "/area.html", "frame.html",
                                           "f2.html", "#top", "", "five.html", "six.html", "/seven.html"])
    }

    /// Where HTML and libxml2 2.9 part: title and textarea hold text (RCDATA), not markup.
    func testTitleAndTextareaHoldTextAsInHTML() throws {
        let (scanned, parsed) = both("<title><a href=\"t.html\"></title><textarea><a href=\"x.html\"></textarea><a href=\"y.html\">y</a>")
        XCTAssertEqual(try XCTUnwrap(scanned).references, ["y.html"])
        XCTAssertEqual(parsed.references, ["t.html", "x.html", "y.html"], "libxml2 reads them as markup")
    }

    func testAgreesWithLibXML2OnTheGeneratedSite() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("scanner-site-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let generator = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Samples/servers/hostile/make_crawl_site.py").path
        let process = try Process.run(URL(fileURLWithPath: "/usr/bin/python3"), arguments: [generator, "--out", folder.path, "--pages", "40"])
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        let files = try XCTUnwrap(FileManager.default.enumerator(atPath: folder.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".html") }
        XCTAssertGreaterThan(files.count, 40)
        for file in files {
            let data = try Data(contentsOf: folder.appendingPathComponent(file))
            let scanned = try XCTUnwrap(data.withUnsafeBytes { HTMLLinkScanner.scan($0) }, file)
            let parsed = LinkExtractor.parsed(data, url: url, charset: nil)
            XCTAssertEqual(scanned.references, parsed.references, file)
            XCTAssertEqual(scanned.base, parsed.base, file)
        }
    }

    func testDeclinesLinksBeyondASCIIAndUTF16() {
        XCTAssertNil(both("<a href=\"caf\u{E9}.html\">x</a>").scanned, "their bytes depend on the page's encoding")
        XCTAssertNil(both("<a href=\"caf&eacute;.html&#xE9;\">x</a>").scanned)
        XCTAssertNotNil(both("<p>caf\u{E9}</p><a href=\"plain.html\">x</a>").scanned, "text beyond ASCII is fine")
        var utf16 = Data([0xFF, 0xFE])
        utf16.append("<a href=x>".data(using: .utf16LittleEndian)!)
        XCTAssertNil(utf16.withUnsafeBytes { HTMLLinkScanner.scan($0) })
    }

    /// The metas asked for, and only those, with their names in lower case and their contents
    /// decoded, in both readers; a link marked rel=nofollow is a link like any other.
    func testRobotsMetasAreReadAndNofollowLinksKept() throws {
        let html = """
            <html><head><META NAME="Robots" CONTENT="NoIndex, NoFollow"><meta name="description" content="nofollow">
            <meta name=relayfetch content=none><meta content="nofollow" name="otherbot"><meta name="robots"></head>
            <body><a rel="nofollow" href="hint.html">hint</a></body></html>
            """
        let (scanned, parsed) = both(html, metaNames: ["robots", "relayfetch"])
        let result = try XCTUnwrap(scanned)
        XCTAssertEqual(result.metas.map { "\($0.name)=\($0.content)" }, ["robots=NoIndex, NoFollow", "relayfetch=none"])
        XCTAssertEqual(parsed.metas.map { "\($0.name)=\($0.content)" }, ["robots=NoIndex, NoFollow", "relayfetch=none"])
        XCTAssertEqual(result.references, ["hint.html"])
        XCTAssertEqual(parsed.references, ["hint.html"])
    }
}
