import Foundation
import XCTest
import RelayFetchTestSupport

/// `relayfetch crawl` with relay chains from managed profiles: each profile is a chain of the
/// pool, carrying the hosts its domains cover; a host none covers is never fetched. Checked on
/// the origin's own log (which relay each request came from, and for which Host).
final class CrawlChainsCommandTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    /// A profile for the HTTP/2 relay at `relay` (pinned to the test relay's key) with `token`,
    /// covering exactly the host names `hosts`.
    private func profile(relay: URL, token: String, hosts: [String]) throws -> URL {
        let payload: [String: Any] = [
            "PayloadType": "com.apple.relay.managed", "PayloadUUID": UUID().uuidString, "MatchFQDNs": hosts,
            "Relays": [["HTTP2RelayURL": relay.absoluteString, "RawPublicKeys": [try TestServers.relayPublicKeyDER()],
                        "AdditionalHTTPHeaderFields": ["Proxy-Authorization": token]]],
        ]
        let plist: [String: Any] = ["PayloadType": "Configuration", "PayloadIdentifier": "test.crawl", "PayloadContent": [payload]]
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-crawl-\(UUID().uuidString).mobileconfig")
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: file)
        return file
    }

    private func host(_ request: CrawlSite.Request) -> String {
        request.headerLines.first { $0.lowercased().hasPrefix("host:") }.map { String($0.dropFirst(5)).trimmingCharacters(in: .whitespaces) } ?? ""
    }

    /// Two profiles (relay A for origin.test, relay B for www.origin.test) and an IP-literal
    /// seed of the same origin that neither covers: each host's pages come from its relay only,
    /// the literal is never requested, and the JSON summary has each chain's health.
    func testProfilesAreChainsAndAHostNoneCoversIsNeverFetched() async throws {
        let site = try CrawlSite(pages: 5)
        let port = site.server.port
        let first = try profile(relay: TestServers.http2RelayAURL, token: TestServers.relayToken, hosts: ["origin.test"])
        let second = try profile(relay: TestServers.http2RelayBURL, token: TestServers.relayBToken, hosts: ["www.origin.test"])
        defer { for file in [first, second] { try? FileManager.default.removeItem(at: file) } }
        let run = await CommandRun.run(["crawl", "https://origin.test:\(port)/", "https://www.origin.test:\(port)/", "https://127.0.0.21:\(port)/",
                                        "--json", "--strip-query-param", "utm_source", "--cacert", TestServers.caFile,
                                        "--profile", first.path, "--profile", second.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        let requests = try site.requests()
        let byHost = Dictionary(grouping: requests, by: host)
        XCTAssertEqual(Set(byHost.keys), ["origin.test:\(port)", "www.origin.test:\(port)"], "never the IP literal")
        XCTAssertEqual(Set(byHost["origin.test:\(port)", default: []].map(\.peer)), ["127.0.0.11"])
        XCTAssertEqual(Set(byHost["www.origin.test:\(port)", default: []].map(\.peer)), ["127.0.0.12"])
        let expected = try site.expectedPaths().count
        let summary = try XCTUnwrap(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
        XCTAssertEqual(summary["fetched"] as? Int, 2 * expected)
        XCTAssertEqual(summary["failed"] as? Int, 1, "the literal: no chain covers it")
        let chains = try XCTUnwrap(summary["chains"] as? [[String: Any]])
        XCTAssertEqual(chains.map { $0["relays"] as? String }, ["127.0.0.11:4433", "127.0.0.12:4433"])
        XCTAssertEqual(chains.map { $0["pages"] as? Int }, [expected, expected])
        XCTAssertEqual(chains.map { $0["up"] as? Bool }, [true, true])
    }

    /// A crawl never runs without relays, and --profile repeats only for crawl.
    func testNoRelaysIsBadUsageAndOtherCommandsTakeOneProfile() async throws {
        let run = await CommandRun.run(["crawl", "https://origin.test/"])
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.stderr.contains("crawl needs relays (--relay, --profile or --ohttp-relay): it never fetches directly"), run.stderr)
        let file = try profile(relay: TestServers.http2RelayAURL, token: TestServers.relayToken, hosts: ["origin.test"])
        defer { try? FileManager.default.removeItem(at: file) }
        let get = await CommandRun.run(["get", "https://origin.test/", "--profile", file.path, "--profile", file.path])
        XCTAssertEqual(get.status, 2)
        XCTAssertTrue(get.stderr.contains("--profile is given once here"), get.stderr)
    }

    /// --requisites from the command line: the page's style sheet and images are in its JSON
    /// line and in the WARC files (warcio accepts them: a request and a response record each).
    func testRequisitesGoToTheJSONLinesAndTheWARCFiles() async throws {
        let site = try CrawlSite(pages: 3)
        try site.addPageWithRequisites()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-requisites-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let jsonl = folder.appendingPathComponent("pages.jsonl"), warc = folder.appendingPathComponent("warc")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let run = await CommandRun.run(["crawl", site.origin + "/req/index.html", "--requisites", "--max-depth", "0", "--no-sitemaps",
                                        "--jsonl", jsonl.path, "--warc", warc.path, "--match-domain", "origin.test"] + CommandRun.relayArguments)
        XCTAssertEqual(run.status, 0, run.stderr)
        let line = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: jsonl)) as? [String: Any])
        let requisites = try XCTUnwrap(line["requisites"] as? [[String: Any]])
        XCTAssertEqual(requisites.filter { $0["status"] as? Int == 200 }.count, 3)
        XCTAssertEqual(requisites.filter { ($0["error"] as? String)?.contains("never connects directly") == true }.count, 1)
        let files = try FileManager.default.contentsOfDirectory(atPath: warc.path).map { warc.appendingPathComponent($0).path }
        let check = try TestServers.run([HostileServer.python, "-m", "warcio.cli", "check", "-v"] + files)
        XCTAssertEqual(check.status, 0, check.output)
        XCTAssertEqual(check.output.components(separatedBy: "digest pass").count - 1, files.count + 2 * 4, "the page and three requisites")
        let archived = try files.map { String(decoding: try Data(contentsOf: URL(fileURLWithPath: $0)), as: UTF8.self) }.joined()
        for path in ["/req/style.css", "/req/img.png", "/req/bg.png"] {
            XCTAssertEqual(archived.components(separatedBy: "WARC-Target-URI: \(site.origin)\(path)\r\n").count - 1, 2, "request and response of \(path)")
        }
        XCTAssertEqual(Set(try site.requests().map(\.peer)), ["127.0.0.11"])
    }
}
