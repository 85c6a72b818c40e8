import Foundation
import XCTest
import Locking
import RelayFetch
import RelayFetchTestSupport
@testable import Crawler

/// A site that answers every host name (static_origin.py --fresh-links: each page links to three
/// host names never given before), reached through a relay that resolves every name under
/// origin.test (h1_relay.py --mode forward, as wildcard DNS would): what the crawl keeps per host
/// (session stores, robots.txt, politeness, relay chain coverage and assignment) stays within
/// `maximumHostsRemembered` however many hosts it meets.
final class CrawlMemoryBoundTests: XCTestCase {
    private var origin: HostileServer?
    private var relay: HostileServer?
    private var root: URL?

    override func tearDown() {
        origin?.stop()
        relay?.stop()
        if let root { try? FileManager.default.removeItem(at: root) }
    }

    func testFreshHostNamesWithoutEndKeepPerHostStateWithinTheBound() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("fresh-hosts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        self.root = root
        let origin = try HostileServer(script: "static_origin.py", arguments: ["--root", root.path, "--fresh-links", "3"])
        self.origin = origin
        let relay = try HostileServer(script: "h1_relay.py", host: "127.0.0.12", arguments: ["--mode", "forward"])
        self.relay = relay
        var sessionConfiguration = TestServers.configuration(hops: [TestServers.relayHop(token: nil, url: URL(string: "https://127.0.0.12:\(relay.port)")!)])
        sessionConfiguration.maximumRedirects = 0
        sessionConfiguration.allowsDirectConnections = false
        let session = try Session(configuration: sessionConfiguration)
        defer { session.invalidate() }

        let bound = 16, pages = 120
        var configuration = CrawlConfiguration(scope: try CrawlScope(hostRule: .sameDomain))
        configuration.maximumHostsRemembered = bound
        configuration.sessionScope = .host
        configuration.maximumPages = pages
        let crawler = try Crawler(configuration: configuration, sessions: [session], store: try SQLiteCrawlStore(path: nil))
        // The most each kind held at any moment of the crawl, sampled while it runs.
        let most = Locked([String: Int]())
        let sampler = Task {
            while !Task.isCancelled {
                let now = await crawler.rememberedHostCounts()
                most.withLock { most in for (kind, count) in now { most[kind] = max(most[kind] ?? 0, count) } }
                try? await Task.sleep(nanoseconds: 5_000_000)
            }
        }
        let progress = try await crawler.run(seeds: [URL(string: "https://f0.origin.test:\(origin.port)/fresh")!]) { _ in }
        sampler.cancel()
        let final = await crawler.rememberedHostCounts()
        most.withLock { most in for (kind, count) in final { most[kind] = max(most[kind] ?? 0, count) } }

        // The pages, from the origin's own log: one /fresh per host, each host new.
        let requests = try origin.events().filter { $0.hasPrefix("REQUEST\t") }.map { $0.components(separatedBy: "\t") }
        let pageHosts = requests.filter { $0.count >= 7 && $0[5] == "/fresh" }.compactMap { fields in
            fields[6].components(separatedBy: "|").first { $0.lowercased().hasPrefix("host:") }
        }
        // A page the relay failed is asked for again (a retry): hosts, not requests, count pages.
        XCTAssertEqual(Set(pageHosts).count, pages, "the origin served \(pages) pages, each on a host of its own")
        XCTAssertLessThan(pageHosts.count, pages + 5, "few retries")
        XCTAssertEqual(progress.fetched, pages)
        let counts = most.withLock { $0 }
        XCTAssertEqual(Set(counts.keys), ["session stores", "robots.txt", "politeness", "chain coverage", "chain assignment"])
        for (kind, count) in counts.sorted(by: { $0.key < $1.key }) {
            XCTAssertLessThanOrEqual(count, bound, "\(kind): held \(count) hosts at most, bound \(bound)")
            XCTAssertGreaterThan(count, 0, "\(kind) was used")
        }
    }
}
