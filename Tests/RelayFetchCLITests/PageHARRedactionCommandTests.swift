import Foundation
import XCTest
import RelayFetchTestSupport

/// `relayfetch page --har` writes a file that can be shared: the page's URL token (also where
/// subresources carry it in Referer) and the cookie nginx sets are blanked; with
/// `--har-with-sensitive-data` they are kept, which proves they were there to blank.
final class PageHARRedactionCommandTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        try TestServers.ensureRunning()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-har-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    func testPageHARBlanksURLTokensAndCookiesUnlessAskedToKeepThem() async throws {
        let token = "T0k-\(UUID().uuidString.prefix(12))"
        let url = "https://origin.test/full/index.html?access_token=\(token)&view=1"
        let redacted = folder.appendingPathComponent("page.har")
        let run = await CommandRun.run(["page", url, "--har", redacted.path] + CommandRun.relayArguments)
        XCTAssertEqual(run.status, 0, run.stderr)

        let sent = try TestServers.allLogLines(TestServers.originALog).filter { $0[OriginLogField.uri.rawValue].contains(token) }
        XCTAssertEqual(sent.count, 1, "the origin received the page's URL with its token")
        let text = try String(contentsOf: redacted, encoding: .utf8)
        XCTAssertFalse(text.contains(token), "the URL token is blanked everywhere (url, queryString, Referer, title)")
        XCTAssertFalse(text.contains("visited=yes"), "the Set-Cookie value is blanked")
        let har = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let entries = try XCTUnwrap((har["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        XCTAssertGreaterThan(entries.count, 10, "the subresources are recorded too")
        let main = try XCTUnwrap(entries.first?["request"] as? [String: Any])
        XCTAssertEqual(main["url"] as? String, "https://origin.test/full/index.html?access_token=%5Bredacted%5D&view=1")
        let query = try XCTUnwrap(main["queryString"] as? [[String: String]])
        XCTAssertEqual(query, [["name": "access_token", "value": "[redacted]"], ["name": "view", "value": "1"]])
        let referers = entries.compactMap { (($0["request"] as? [String: Any])?["headers"] as? [[String: String]])?.first { $0["name"]?.lowercased() == "referer" }?["value"] }
        let fromPage = referers.filter { $0.hasPrefix("https://origin.test/full/index.html") }
        XCTAssertGreaterThan(fromPage.count, 5, "subresources carry the page's URL as Referer: \(referers)")
        XCTAssertTrue(fromPage.allSatisfy { $0.hasSuffix("?access_token=%5Bredacted%5D&view=1") }, "\(fromPage)")

        let kept = folder.appendingPathComponent("kept.har")
        let keep = await CommandRun.run(["page", url, "--har", kept.path, "--har-with-sensitive-data"] + CommandRun.relayArguments)
        XCTAssertEqual(keep.status, 0, keep.stderr)
        let keptText = try String(contentsOf: kept, encoding: .utf8)
        XCTAssertTrue(keptText.contains(token), "asked for sensitive data, the token is kept")
        XCTAssertTrue(keptText.contains("visited=yes"), "asked for sensitive data, the cookie is kept")
    }
}
