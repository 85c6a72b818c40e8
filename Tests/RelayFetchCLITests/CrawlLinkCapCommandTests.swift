import Foundation
import XCTest
import RelayFetchTestSupport

/// `relayfetch crawl --max-links-per-page`: a page with more links than the cap gives the cap's
/// worth, the origin's log shows only those fetched, and the summary and the page's JSON line
/// say how many were left out.
final class CrawlLinkCapCommandTests: XCTestCase {
    func testLinksBeyondThePageCapAreNotFollowedAndTheSummarySaysSo() async throws {
        let site = try CrawlSite(pages: 1)
        let links = (0..<50).map { "<a href=\"p\($0).html\">\($0)</a>" }.joined(separator: "\n")
        try site.addPage("wide/index.html", "<!doctype html><html><body>\(links)</body></html>")
        let jsonl = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-link-cap-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: jsonl) }

        let run = await CommandRun.run(["crawl", site.origin + "/wide/", "--max-depth", "1", "--max-links-per-page", "10", "--jsonl", jsonl.path]
                                       + CommandRun.relayArguments)
        XCTAssertEqual(run.status, 0, run.stderr)
        let fetched = try site.requests().map(\.path).filter { $0.hasPrefix("/wide/p") }
        XCTAssertEqual(Set(fetched), Set((0..<10).map { "/wide/p\($0).html" }), "the origin served the first ten links only")
        XCTAssertEqual(fetched.count, 10)
        XCTAssertTrue(run.stdoutText.contains("1 page had more distinct links than taken (--max-links-per-page 10): 40 links not followed"),
                      run.stdoutText)
        let records = try String(contentsOf: jsonl, encoding: .utf8).split(separator: "\n")
            .compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let seed = try XCTUnwrap(records.first { $0["url"] as? String == site.origin + "/wide/" })
        XCTAssertEqual(seed["linksCut"] as? Int, 40)
        XCTAssertEqual((seed["links"] as? [String])?.count, 10)
    }
}
