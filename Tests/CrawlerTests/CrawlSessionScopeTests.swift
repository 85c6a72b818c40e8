import Foundation
import XCTest
import RelayFetchTestSupport
@testable import Crawler

/// How far cookies reach in each session scope, read from the origin's log of Cookie headers.
/// The origin serves one site as origin.test and as www.origin.test; every response sets a
/// cookie for the whole origin.test domain, named after the host that set it, so a request's
/// Cookie header says whose responses it carries.
final class CrawlSessionScopeTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    /// Crawls both hosts of a fresh site in `scope`; returns every request the origin logged.
    private func crawlBothHosts(_ scope: CrawlSessionScope) async throws -> [CrawlSite.Request] {
        let site = try CrawlSite(pages: 10, serverArguments: ["--set-cookie", "--cookie-domain", "origin.test"])
        let port = site.server.port
        _ = try await CrawlTestHarness.crawl(["https://origin.test:\(port)/", "https://www.origin.test:\(port)/"]) { $0.sessionScope = scope }
        let requests = try site.requests()
        let expected = try site.expectedPaths().count
        XCTAssertEqual(try site.pageFetchCounts().values.reduce(0, +), 2 * expected, "both hosts crawled, each page once")
        return requests
    }

    /// The cookie name a response to `request`'s host sets: "from-" and the Host field, . and : as -.
    private func ownName(_ request: CrawlSite.Request) -> String {
        let host = request.headerLines.first { $0.lowercased().hasPrefix("host:") }.map { String($0.dropFirst(5)).trimmingCharacters(in: .whitespaces) } ?? ""
        return "from-" + host.replacingOccurrences(of: ".", with: "-").replacingOccurrences(of: ":", with: "-")
    }

    /// The names of the cookies `request` carried.
    private func cookieNames(_ request: CrawlSite.Request) -> [String] {
        request.headerLines.filter { $0.lowercased().hasPrefix("cookie:") }
            .flatMap { $0.dropFirst(7).split(separator: ";") }
            .map { String($0.split(separator: "=", maxSplits: 1).first ?? "").trimmingCharacters(in: .whitespaces) }
    }

    func testPageScopeSendsNoCookieEver() async throws {
        let requests = try await crawlBothHosts(.page)
        XCTAssertEqual(requests.filter { !cookieNames($0).isEmpty }.map(\.target), [], "a cookie crossed pages")
    }

    func testHostScopeSendsEachHostOnlyItsOwnCookies() async throws {
        let requests = try await crawlBothHosts(.host)
        let crossed = requests.filter { request in cookieNames(request).contains { $0 != ownName(request) } }
        XCTAssertEqual(crossed.map { "\(ownName($0)) got \(cookieNames($0))" }, [], "a cookie crossed hosts")
        let carrying = Set(requests.filter { !cookieNames($0).isEmpty }.map(ownName))
        XCTAssertEqual(carrying.count, 2, "each host got its own cookies back (the scope is a host, not a page)")
    }

    /// The control: in one store for the crawl, the domain cookies do reach the other host.
    func testCrawlScopeSharesDomainCookiesAcrossHosts() async throws {
        let requests = try await crawlBothHosts(.crawl)
        XCTAssertTrue(requests.contains { request in cookieNames(request).contains { $0 != ownName(request) } })
    }
}
