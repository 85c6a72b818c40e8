import Foundation
import XCTest
import RelayFetch
import RelayFetchTestSupport
@testable import Crawler

/// The scope holds through real relays, whatever the caller's sessions allow: an IP-literal
/// seed under same-domain reaches no other address, and a redirect out of scope is not followed
/// even by a session configured to follow redirects. Read from the origins' logs.
final class CrawlScopeEndToEndTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        try TestServers.ensureRunning()
        root = FileManager.default.temporaryDirectory.appendingPathComponent("crawl-scope-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: root) }

    /// The targets `server` (static_origin.py) was asked for.
    private func targets(_ server: HostileServer) throws -> [String] {
        try server.events().compactMap { line in
            let fields = line.components(separatedBy: "\t")
            return fields.count >= 6 && fields[0] == "REQUEST" ? fields[5] : nil
        }
    }

    /// Seed http://127.0.0.21 with --same-domain; its page links to 127.1.0.21, which libpsl
    /// puts under the same "0.21". That origin is never asked (it is when seeded itself, so its
    /// log is live).
    func testAnIPLiteralSeedUnderSameDomainReachesNoOtherAddress() async throws {
        let otherFolder = root.appendingPathComponent("other")
        try FileManager.default.createDirectory(at: otherFolder, withIntermediateDirectories: true)
        try Data("secret".utf8).write(to: otherFolder.appendingPathComponent("secret.html"))
        try Data("<a href=\"secret.html\">s</a>".utf8).write(to: otherFolder.appendingPathComponent("index.html"))
        let other = try HostileServer(script: "static_origin.py", host: "127.1.0.21", arguments: ["--plain", "--root", otherFolder.path])
        let seedFolder = root.appendingPathComponent("seed")
        try FileManager.default.createDirectory(at: seedFolder, withIntermediateDirectories: true)
        try Data("<a href=\"http://127.1.0.21:\(other.port)/secret.html\">x</a> <a href=\"/a.html\">a</a>".utf8)
            .write(to: seedFolder.appendingPathComponent("index.html"))
        try Data("a".utf8).write(to: seedFolder.appendingPathComponent("a.html"))
        let seed = try HostileServer(script: "static_origin.py", host: "127.0.0.21", arguments: ["--plain", "--root", seedFolder.path])
        XCTAssertEqual(PublicSuffixList.registrableDomain("127.1.0.21"), PublicSuffixList.registrableDomain("127.0.0.21"),
                       "the trap this test sets: libpsl puts both addresses under one domain")

        let (records, _) = try await CrawlTestHarness.crawl(["http://127.0.0.21:\(seed.port)/"]) { $0.scope.hostRule = .sameDomain }
        XCTAssertEqual(Set(try targets(seed)), ["/robots.txt", "/", "/a.html"])
        XCTAssertEqual(try targets(other), [], "no request left the seed's own address")
        let index = try XCTUnwrap(records.first { $0.url == "http://127.0.0.21:\(seed.port)/" })
        XCTAssertTrue(index.links.contains("http://127.1.0.21:\(other.port)/secret.html"), "the link was read, and left out")

        _ = try await CrawlTestHarness.crawl(["http://127.1.0.21:\(other.port)/"]) { $0.scope.hostRule = .sameDomain }
        XCTAssertEqual(Set(try targets(other)), ["/robots.txt", "/", "/secret.html"], "the other origin answers through the relay")
    }

    /// A session left to follow 20 redirects (the library's default): the crawler still takes
    /// a redirect for a link, and one to another host is not followed.
    func testARedirectOutOfScopeIsNotFollowedWhateverTheSessionAllows() async throws {
        let site = try CrawlSite(pages: 1)
        let elsewhere = "https://www.origin.test:\(site.server.port)/r/target.html"
        try site.addPage("r/away.html", "", headers: ["Status: 302 Found", "Location: \(elsewhere)"])
        try site.addPage("r/target.html", "target")
        var sessionConfiguration = TestServers.configuration(hops: CrawlTestHarness.relayA)
        sessionConfiguration.allowsDirectConnections = false
        XCTAssertGreaterThan(sessionConfiguration.maximumRedirects, 0, "a session that would follow redirects")
        let session = try Session(configuration: sessionConfiguration)
        defer { session.invalidate() }
        var configuration = CrawlConfiguration(scope: try CrawlScope())
        configuration.followsSitemaps = false
        let crawler = try Crawler(configuration: configuration, session: session, store: try SQLiteCrawlStore(path: nil))
        let records = RecordList()
        _ = try await crawler.run(seeds: [URL(string: site.origin + "/r/away.html")!]) { records.append($0.record) }

        let hosts = try site.requests().compactMap { $0.headerLines.first { $0.lowercased().hasPrefix("host:") } }
        XCTAssertFalse(hosts.isEmpty, "the origin logged the crawl")
        XCTAssertEqual(hosts.filter { $0.contains("www.origin.test") }, [], "the redirect to another host was not followed")
        let away = try XCTUnwrap(records.all.first)
        XCTAssertEqual(away.status, 302)
        XCTAssertEqual(away.links, [elsewhere], "the redirect is a link, out of scope")
    }
}
