import Foundation
import XCTest
import RelayFetchTestSupport

/// `relayfetch page` printing the page's content (--dump-dom, --text, --select, --links) instead
/// of its summary, through relay A to the test origin's sample site (Samples/site).
final class PageContentCommandTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    private func page(_ path: String, _ options: [String]) async -> CommandRun {
        await CommandRun.run(["page", "https://origin.test/\(path)"] + options + CommandRun.relayArguments)
    }

    /// The done-when: the text of the page's h1, picked with --select, fetched through a relay.
    func testSelectExtractsTheHeadingTextThroughARelay() async throws {
        let marker = TestServers.marker("selecth1")
        let run = await page("index.html?\(marker)", ["--select", "h1", "--text"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdoutText, "relayfetch sample site\n")
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first?.first, "127.0.0.11",
                       "the origin saw relay A")
    }

    func testDumpDOMIsWhatChromiumPrintsForTheSamePage() async throws {
        try XCTSkipUnless(ChromiumDump.isInstalled, "needs \(ChromiumDump.executable)")
        for path in ["index.html", "full/index.html"] {
            let run = await page(path, ["--dump-dom"])
            XCTAssertEqual(run.status, 0, run.stderr)
            let file = TestServers.repository.appendingPathComponent("Samples/site/\(path)")
            XCTAssertEqual(run.stdoutText, try ChromiumDump.dom(of: file), path)
        }
    }

    func testTextKeepsBlocksOnLinesOfTheirOwn() async {
        let run = await page("about.html", ["--text"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdoutText, "About\n\nA tiny static site served by the test origins.\n\nBack to the start page\n")
    }

    func testSelectPrintsOuterHTMLAttributesOrJSON() async throws {
        let html = await page("index.html", ["--select", "h1", "--select", "p a, img"])
        XCTAssertEqual(html.status, 0, html.stderr)
        XCTAssertEqual(html.stdoutText, """
            <h1>relayfetch sample site</h1>
            <img src="logo.svg" alt="relayfetch logo" width="64" height="64">
            <a href="about.html">About this site</a>

            """)
        let attributes = await page("index.html", ["--select", "a, img", "--attr", "HREF"])
        XCTAssertEqual(attributes.stdoutText, "about.html\n", "a match without the attribute prints nothing")

        let json = await page("index.html", ["--select", "img", "--select", "h1", "--select-json"])
        XCTAssertEqual(json.status, 0, json.stderr)
        let objects = try XCTUnwrap(try JSONSerialization.jsonObject(with: json.stdout) as? [[String: Any]])
        XCTAssertEqual(objects.map { $0["selector"] as? String }, ["img", "h1"])
        XCTAssertEqual(objects.map { $0["tag"] as? String }, ["img", "h1"])
        XCTAssertEqual(objects[1]["text"] as? String, "relayfetch sample site")
        XCTAssertEqual(objects[1]["html"] as? String, "<h1>relayfetch sample site</h1>")
        XCTAssertEqual(objects[0]["attributes"] as? [String: String], ["src": "logo.svg", "alt": "relayfetch logo", "width": "64", "height": "64"])
    }

    /// full/index.html has <base href="/full/">, rel'd links and a plain one.
    func testLinksAreAbsoluteOncePerURLWithTheirRel() async {
        let run = await page("full/index.html", ["--links"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdoutText, """
            https://origin.test/full/css/main.css\tstylesheet
            https://origin.test/full/img/favicon.svg\ticon
            https://origin.test/full/img/touch.png\tapple-touch-icon
            https://origin.test/full/fonts/preloaded.woff2\tpreload
            https://origin.test/full/js/module-dep.js\tmodulepreload
            https://origin.test/full/app.webmanifest\tmanifest
            https://origin.test/full/canonical.html\tcanonical
            https://origin.test/full/feed.xml\talternate
            https://origin.test/full/never-fetched.html\t

            """)
    }

    func testRequireMatchFailsWhenASelectorMatchesNothing() async {
        let options = ["--select", "h1", "--select", ".missing"]
        let lenient = await page("index.html", options)
        XCTAssertEqual(lenient.status, 0, lenient.stderr)
        let strict = await page("index.html", options + ["--require-match"])
        XCTAssertEqual(strict.status, 1)
        XCTAssertEqual(strict.stdoutText, "<h1>relayfetch sample site</h1>\n", "what matched is still printed")
        XCTAssertEqual(strict.stderr, "relayfetch: no match for --select \".missing\"\n")
        let attribute = await page("index.html", ["--select", "h1", "--attr", "class", "--require-match"])
        XCTAssertEqual(attribute.status, 1, "no match has the attribute")
    }

    /// --save still writes its copy; stdout carries only the content.
    func testContentCombinesWithSave() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-content-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = await page("index.html", ["--select", "title", "--text", "--save", folder.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdoutText, "relayfetch sample site\n")
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent("origin.test/index.html").path))
    }

    func testConflictingContentOptionsAreUsageErrors() async {
        let cases: [([String], String)] = [
            (["--dump-dom", "--links"], "--dump-dom and --links both print the page"),
            (["--text", "--json"], "--json and --text both print to stdout"),
            (["--attr", "href"], "--attr needs --select"),
            (["--require-match"], "--require-match needs --select"),
            (["--select", "a", "--attr", "href", "--select-json"], "--attr and --select-json both choose what --select prints"),
            (["--select", "a[", "--text"], "--select needs a CSS selector list"),
        ]
        for (options, expected) in cases {
            let run = await CommandRun.run(["page", "https://origin.test/"] + options + CommandRun.relayArguments)
            XCTAssertEqual(run.status, 2, "\(options)")
            XCTAssertTrue(run.stderr.contains(expected), "expected \(expected)\ngot \(run.stderr)")
        }
    }
}
