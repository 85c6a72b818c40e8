import Foundation
import XCTest
import HeadlessPage
import RelayFetch
import WebArchive
import RelayFetchTestSupport

/// HAR and WARC output checked by independent tools from PyPI (haralyzer, warcio), installed in
/// .build/venv by scripts/setup.sh.
final class ArchiveValidationTests: XCTestCase {
    private var python: String { TestServers.repository.appendingPathComponent(".build/venv/bin/python").path }

    override func setUpWithError() throws {
        try TestServers.ensureRunning()
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw TestServerError(description: "no \(python): run scripts/setup.sh")
        }
    }

    private func loadSample() async throws -> Page {
        let session = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop()]))
        defer { session.invalidate() }
        var options = PageLoader.Options.complete
        options.keepBodies = true
        return try await PageLoader(session: session, options: options).load(URL(string: "https://origin.test/full/index.html")!)
    }

    private func temporaryFile(_ suffix: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-\(UUID().uuidString).\(suffix)")
    }

    func testWARCPassesWarcioWithDigests() async throws {
        let page = try await loadSample()
        let file = temporaryFile("warc")
        defer { try? FileManager.default.removeItem(at: file) }
        try WARCWriter.data(for: page).write(to: file)
        let check = try TestServers.run([python, "-m", "warcio.cli", "check", "-v", file.path])
        XCTAssertEqual(check.status, 0, check.output)
        XCTAssertEqual(check.output.components(separatedBy: "digest pass").count - 1, 2 * 39 + 1, check.output)
        let index = try TestServers.run([python, "-c", """
            import sys
            from warcio.archiveiterator import ArchiveIterator
            with open(sys.argv[1], 'rb') as f:
                for r in ArchiveIterator(f):
                    if r.rec_type == 'response':
                        body = r.content_stream().read()
                        print(r.rec_headers.get_header('WARC-Target-URI'), r.http_headers.get_statuscode(), len(body))
            """, file.path])
        XCTAssertEqual(index.status, 0, index.output)
        let lines = index.output.split(separator: "\n")
        XCTAssertEqual(lines.count, 39)
        XCTAssertTrue(lines.contains { $0.hasPrefix("https://origin.test/full/css/main.css 200 ") }, index.output)
    }

    func testHARLoadsInHaralyzer() async throws {
        let page = try await loadSample()
        let file = temporaryFile("har")
        defer { try? FileManager.default.removeItem(at: file) }
        try HARWriter.data(for: page).write(to: file)
        let check = try TestServers.run([python, "-c", """
            import json, sys
            from haralyzer import HarParser
            har = HarParser(json.load(open(sys.argv[1])))
            page = har.pages[0]
            assert page.title == 'relayfetch complete sample', page.title
            statuses = {e.status for e in page.entries}
            chains = {tuple(e.raw_entry['_relayChain']) for e in page.entries}
            print(len(page.entries), sorted(statuses), sorted(chains))
            """, file.path])
        XCTAssertEqual(check.status, 0, check.output)
        XCTAssertEqual(check.output.trimmingCharacters(in: .whitespacesAndNewlines), "39 [200] [('127.0.0.11:3129',)]")
    }
}
