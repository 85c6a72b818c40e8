import Foundation
import XCTest
import HeadlessPage
import Locking
import RelayFetch
import RelayFetchTestSupport
@testable import Crawler

/// Outputs that fail: a thrown error naming the file and the cause, never a trap; a page in all
/// outputs or none; and a crawl whose `onPage` throws stops without marking that page done.
final class CrawlOutputFailureTests: XCTestCase {
    private var fileSystem: SmallFileSystem?
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("crawl-output-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        fileSystem?.unmount()
        try? FileManager.default.removeItem(at: folder)
    }

    private func page(_ number: Int, links: Int = 20) -> CrawledPage {
        var record = CrawlRecord(url: "https://example.com/page-\(number).html", depth: 1, outcome: .fetched, fetchedAt: Date())
        record.status = 200
        record.links = (0..<links).map { "https://example.com/linked-\(number)-\($0).html" }
        let body = Data(repeating: 0x61, count: 2000)
        let exchange = HTTPExchange(request: .init(method: "GET", url: URL(string: record.url)!, headerFields: []),
                                    response: .init(statusCode: 200, httpVersion: "HTTP/1.1", headerFields: [("Content-Type", "text/html")],
                                                    mimeType: "text/html"),
                                    body: .data(body), bodySize: body.count, startedAt: record.fetchedAt, duration: 0)
        return CrawledPage(record: record, exchange: exchange)
    }

    /// A session through relay A that never connects directly, as a crawl requires.
    private func relayASession() throws -> Session {
        var configuration = TestServers.configuration(hops: CrawlTestHarness.relayA)
        configuration.allowsDirectConnections = false
        return try Session(configuration: configuration)
    }

    func testDevFullThrowsNamingTheFileAndTheCauseEveryTime() throws {
        let output = try CrawlOutput(jsonLinesPath: "/dev/full", warcDirectory: nil)
        for _ in 0..<2 {
            XCTAssertThrowsError(try output.write(page(1))) { error in
                XCTAssertEqual("\(error)", "crawl output: cannot write /dev/full: No space left on device")
                XCTAssertEqual((error as? CrawlError)?.isOutputFailure, true)
            }
        }
    }

    /// JSON lines on a roomy disk, WARC on a 64 KiB tmpfs: when the WARC write fails, the page's
    /// JSON line is taken back too, and the WARC file is cut back to whole records (warcio
    /// reads it through).
    func testAPageIsInEveryOutputOrInNone() throws {
        let small = try SmallFileSystem(options: "size=64k")
        fileSystem = small
        let jsonl = folder.appendingPathComponent("pages.jsonl")
        let output = try CrawlOutput(jsonLinesPath: jsonl.path, warcDirectory: small.path.path)
        var written = 0
        while written < 1000 {
            do { try output.write(page(written)) } catch {
                XCTAssertTrue("\(error)".hasSuffix(": No space left on device"), "\(error)")
                break
            }
            written += 1
        }
        XCTAssertGreaterThan(written, 5)
        XCTAssertLessThan(written, 1000, "the small file system filled up")
        XCTAssertThrowsError(try output.write(page(written + 1)), "nothing is taken after a failure")
        let text = try String(contentsOf: jsonl, encoding: .utf8)
        XCTAssertEqual(text.split(separator: "\n").count, written, "a line per page the archive took, no more")
        XCTAssertTrue(text.hasSuffix("\n"))
        let file = try XCTUnwrap(output.warcFiles.first).path
        let check = try TestServers.run([HostileServer.python, "-m", "warcio.cli", "check", file])
        XCTAssertEqual(check.status, 0, check.output)
        let count = try TestServers.run([HostileServer.python, "-c", """
            import sys
            from warcio.archiveiterator import ArchiveIterator
            print(sum(1 for r in ArchiveIterator(open(sys.argv[1], 'rb')) if r.rec_type == 'response'))
            """, file])
        XCTAssertEqual(count.output.trimmingCharacters(in: .whitespacesAndNewlines), String(written), count.output)
    }

    /// `onPage` throws for the third page: the crawl stops with that error, the page stays
    /// claimed (not done) in the store, and the next run on the store hands it over.
    func testAnOnPageThatThrowsStopsTheCrawlAndTheResumeHandsThePageOver() async throws {
        try TestServers.ensureRunning()
        let site = try CrawlSite(pages: 10)
        let store = folder.appendingPathComponent("crawl.db").path
        let session = try relayASession()
        defer { session.invalidate() }
        var configuration = CrawlConfiguration(scope: try CrawlScope())
        configuration.concurrency = 1
        configuration.canonicalizer.strippedQueryParameters = ["utm_source"]
        let handed = Locked<[String]>([])
        let failed = Locked<String?>(nil)
        do {
            // In this scope: the store file is one store's at a time, the resumed run's next.
            let first = try Crawler(configuration: configuration, session: session, store: try SQLiteCrawlStore(path: store))
            _ = try await first.run(seeds: [URL(string: site.origin + "/")!]) { page in
                if handed.withLock({ $0.count }) == 2 {
                    failed.withLock { $0 = page.record.url }
                    throw CrawlError.output("disk full (test)")
                }
                handed.withLock { $0.append(page.record.url) }
            }
            XCTFail("the crawl went on past a failed output")
        } catch {
            XCTAssertEqual("\(error)", "crawl output: disk full (test)")
        }
        let lost = try XCTUnwrap(failed.withLock { $0 })
        XCTAssertEqual(try SQLiteCrawlStore(path: store).urls(in: .claimed), [lost], "not marked done")

        let second = try Crawler(configuration: configuration, session: session, store: try SQLiteCrawlStore(path: store))
        _ = try await second.run(seeds: [URL(string: site.origin + "/")!]) { page in handed.withLock { $0.append(page.record.url) } }
        let all = handed.withLock { $0 }
        XCTAssertEqual(all.filter { $0 == lost }.count, 1, "handed over once, by the resumed run")
        XCTAssertEqual(Set(all).count, all.count, "no page handed over twice")
        XCTAssertEqual(Set(all.compactMap { URLComponents(string: $0)?.percentEncodedPath }), Set(try site.expectedPaths() + ["/private/secret.html"]))
    }

    /// The same with eight workers, two of them on the site's one host: the workers that fail
    /// hold their claims, which the six waiting for the host would wait on forever (the crawl
    /// hung until killed); the first failure now cancels the others.
    func testAnOnPageThatThrowsStopsAConcurrentCrawlPromptly() async throws {
        try TestServers.ensureRunning()
        let site = try CrawlSite(pages: 200, serverArguments: ["--delay-ms", "50"])
        let session = try relayASession()
        defer { session.invalidate() }
        var configuration = CrawlConfiguration(scope: try CrawlScope())
        configuration.concurrency = 8  // two at a time on the one host: six workers wait for a claim to end
        let handed = Locked(0)
        let crawler = try Crawler(configuration: configuration, session: session, store: try SQLiteCrawlStore(path: nil))
        let crawl = Task {
            try await crawler.run(seeds: [URL(string: site.origin + "/")!]) { _ in
                if handed.withLock({ $0 += 1; return $0 }) > 20 { throw CrawlError.output("disk full (test)") }
            }
        }
        let watchdog = Task {
            try await Task.sleep(nanoseconds: 20_000_000_000)
            crawl.cancel()
        }
        defer { watchdog.cancel() }
        let started = Date()
        let result = await crawl.result
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "the crawl ended soon after its output failed")
        XCTAssertThrowsError(try result.get()) { XCTAssertEqual("\($0)", "crawl output: disk full (test)") }
    }
}
