import Foundation
import XCTest
import RelayFetchTestSupport

/// `relayfetch crawl --session-scope` as a user runs it, read from the origin's log of Cookie
/// headers: the site is served as origin.test and www.origin.test, and every response sets a
/// cookie for the whole origin.test domain named after the host that set it.
final class CrawlSessionsCommandTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    /// The cookie names each request carried, with the name its own host's cookie has.
    private func crawl(scope: String?) async throws -> [(own: String, carried: [String])] {
        let site = try CrawlSite(pages: 5, serverArguments: ["--set-cookie", "--cookie-domain", "origin.test"])
        let port = site.server.port
        let run = await CommandRun.run(["crawl", "https://origin.test:\(port)/", "https://www.origin.test:\(port)/", "--strip-query-param", "utm_source"]
                                       + (scope.map { ["--session-scope", $0] } ?? []) + CommandRun.relayArguments)
        XCTAssertEqual(run.status, 0, run.stderr)
        let requests = try site.requests()
        XCTAssertEqual(Set(requests.map(\.path)).count, try site.expectedPaths().count + 1, "every page (and robots.txt) requested")
        return requests.map { request in
            let host = request.headerLines.first { $0.lowercased().hasPrefix("host:") }.map { String($0.dropFirst(5)).trimmingCharacters(in: .whitespaces) } ?? ""
            let carried = request.headerLines.filter { $0.lowercased().hasPrefix("cookie:") }.flatMap { $0.dropFirst(7).split(separator: ";") }
                .map { String($0.split(separator: "=").first ?? "").trimmingCharacters(in: .whitespaces) }
            return ("from-" + host.replacingOccurrences(of: ".", with: "-").replacingOccurrences(of: ":", with: "-"), carried)
        }
    }

    func testDefaultPageScopeSendsNoCookieAndHostScopeNeverAnotherHostsCookie() async throws {
        let byPage = try await crawl(scope: nil)
        XCTAssertEqual(byPage.filter { !$0.carried.isEmpty }.count, 0, "a cookie crossed pages")
        let byHost = try await crawl(scope: "host")
        XCTAssertGreaterThan(byHost.filter { !$0.carried.isEmpty }.count, 0, "a host's own cookies came back")
        XCTAssertEqual(byHost.filter { request in request.carried.contains { $0 != request.own } }.map(\.carried), [], "a cookie crossed hosts")
        let crawlWide = try await crawl(scope: "crawl")
        XCTAssertTrue(crawlWide.contains { request in request.carried.contains { $0 != request.own } }, "the control: one store shares them")
    }
}
