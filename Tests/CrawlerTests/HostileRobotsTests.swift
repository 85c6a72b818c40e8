import Foundation
import XCTest
import RelayFetchTestSupport
@testable import Crawler

/// robots.txt files written to stall a crawler, served by our static origin in plain HTTP on
/// 127.0.0.160 (reached through relay A): the crawl must still end, and soon. What was fetched is
/// read from the origin's log.
final class HostileRobotsTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        try TestServers.ensureRunning()
        root = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-robots-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: root) }

    /// Starts a plain-HTTP static origin serving `files` (path -> content).
    private func serve(_ files: [String: String]) throws -> HostileServer {
        for (path, content) in files { try Data(content.utf8).write(to: root.appendingPathComponent(path)) }
        return try HostileServer(script: "static_origin.py", host: "127.0.0.160", arguments: ["--plain", "--root", root.path])
    }

    /// The targets the origin was asked for, in order.
    private func targets(_ server: HostileServer) throws -> [String] {
        try server.events().compactMap { line in
            let fields = line.components(separatedBy: "\t")
            return fields.count >= 6 && fields[0] == "REQUEST" ? fields[5] : nil
        }
    }

    /// Runs the crawl, failing (and cancelling it) when it is not over after `seconds`; rethrows
    /// the crawl's error (a cancelled crawl's too), so a crawl that fails cannot pass.
    private func crawl(_ seed: String, within seconds: Double, configure: @escaping @Sendable (inout CrawlConfiguration) -> Void = { _ in })
        async throws -> CrawlProgress {
        let crawl = Task { try await CrawlTestHarness.crawl([seed], configure: configure).1 }
        let watchdog = Task {
            try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
            crawl.cancel()
        }
        defer { watchdog.cancel() }
        let started = Date()
        let result = await crawl.result
        XCTAssertLessThan(Date().timeIntervalSince(started), seconds, "the crawl was still running after \(seconds) s")
        return try result.get()
    }

    /// A pattern of 30 000 bytes after a `*`, and a link of 60 000 bytes on the same site: the
    /// backtracking matcher compared them for minutes; the crawl now ends at once. The pattern
    /// (it needs a final "b") does not match the link, which is fetched.
    func testLongWildcardPatternAgainstALongLinkDoesNotStallTheCrawl() async throws {
        let run = String(repeating: "a", count: 60_000)
        let server = try serve(["robots.txt": "User-agent: *\nDisallow: /*\(run.prefix(30_000))b\n",
                                "index.html": "<a href=\"/\(run)\">long</a>"])
        let progress = try await crawl("http://127.0.0.160:\(server.port)/", within: 20)
        XCTAssertEqual(progress.blockedByRobots, 0)
        XCTAssertEqual(try targets(server).sorted(), ["/", "/" + run, "/robots.txt"])
    }

    /// 19 000 user-agent lines, then 28 000 rules (500 KiB): the parser asked the group's list of
    /// agents at every rule line, a billion string comparisons (78 s for one parse in the fuzz
    /// build). The group is now decided at its user-agent lines.
    func testManyAgentsThenManyRulesParseAtOnce() async throws {
        let robots = String(repeating: "user-agent: a\n", count: 19_000) + String(repeating: "allow: /\n", count: 28_000)
        let server = try serve(["robots.txt": robots, "index.html": "<a href=\"/a.html\">a</a>", "a.html": "a"])
        let progress = try await crawl("http://127.0.0.160:\(server.port)/", within: 20)
        XCTAssertEqual(progress.fetched, 2)
        XCTAssertEqual(try targets(server).sorted(), ["/", "/a.html", "/robots.txt"])
    }

    /// `Crawl-delay: 1e9` would keep the site's remaining pages waiting for 31 years: the delay
    /// is capped by the retry policy's longest wait (1 s here), which still spaces the requests.
    func testHugeCrawlDelayIsCappedByTheLongestWait() async throws {
        let server = try serve(["robots.txt": "User-agent: *\nCrawl-delay: 1e9\n",
                                "index.html": "<a href=\"/a.html\">a</a> <a href=\"/b.html\">b</a>", "a.html": "a", "b.html": "b"])
        let progress = try await crawl("http://127.0.0.160:\(server.port)/", within: 20) { $0.retry.maximumDelay = 1 }
        XCTAssertEqual(progress.fetched, 3)
        XCTAssertEqual(try targets(server).sorted(), ["/", "/a.html", "/b.html", "/robots.txt"])
        let times = try server.events().compactMap { line -> Double? in
            let fields = line.components(separatedBy: "\t")
            return fields.count >= 6 && fields[0] == "REQUEST" && fields[5] != "/robots.txt" ? Double(fields[1]) : nil
        }
        for (earlier, later) in zip(times, times.dropFirst()) { XCTAssertGreaterThanOrEqual(later - earlier, 0.8, "the capped delay spaces requests") }
    }
}
