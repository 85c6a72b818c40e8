import Foundation
import XCTest
import RelayFetchTestSupport

/// `relayfetch page` and `get` with `--origin-protocol h3` through two HTTP/3 relays, against
/// Caddy on 127.0.5.3: the origin logs every request as HTTP/3 from relay B (127.0.0.12), and
/// the HAR names the exchanges `h3` with timings that add up.
final class HTTP3OriginCommandTests: XCTestCase {
    nonisolated(unsafe) private static var origin: CaddyOrigin?
    private var folder: URL!

    override class func setUp() {
        super.setUp()
        origin = try? CaddyOrigin(host: "127.0.5.3")
    }

    override class func tearDown() {
        origin = nil
        super.tearDown()
    }

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-h3-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    /// Relays A and B over QUIC only, each with its token, and the test CA for origins.
    private static var http3Relays: [String] {
        ["--relay", "https://127.0.0.11:4433", "--relay-protocol", "h3", "--relay-header", "Proxy-Authorization: \(TestServers.relayToken)",
         "--relay-cacert", TestServers.caFile,
         "--relay", "https://127.0.0.12:4433", "--relay-protocol", "h3", "--relay-header", "Proxy-Authorization: \(TestServers.relayBToken)",
         "--relay-cacert", TestServers.caFile, "--cacert", TestServers.caFile]
    }

    func testPageOverHTTP3ThroughTwoRelaysWritesH3InTheHAR() async throws {
        let origin = try XCTUnwrap(Self.origin, "caddy did not start on 127.0.5.3 (run scripts/setup.sh)")
        let marker = TestServers.marker("page")
        let har = folder.appendingPathComponent("page.har")
        let run = await CommandRun.run(["page", "\(origin.url)/index.html?\(marker)", "--har", har.path, "--origin-protocol", "h3"] + Self.http3Relays)
        XCTAssertEqual(run.status, 0, run.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: har)) as? [String: Any])
        let entries = try XCTUnwrap((json["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        XCTAssertGreaterThanOrEqual(entries.count, 2, "the page and its requisites")
        for entry in entries {
            XCTAssertEqual((entry["response"] as? [String: Any])?["httpVersion"] as? String, "h3")
            let timings = try XCTUnwrap(entry["timings"] as? [String: Double])
            // HAR counts ssl inside connect: the phases without it add up to the entry's time.
            let sum = timings.filter { $0.key != "ssl" }.values.filter { $0 > 0 }.reduce(0, +)
            XCTAssertEqual(entry["time"] as? Double ?? -1, sum, accuracy: 0.002, "HAR timings add up to the entry's time: \(timings)")
        }
        let logged = try origin.requests(containing: "", expected: entries.count + 1).filter { !$0.uri.contains("caddy-ready") }
        XCTAssertGreaterThanOrEqual(logged.count, entries.count)
        XCTAssertEqual(Set(logged.map(\.proto)), ["HTTP/3.0"])
        XCTAssertEqual(Set(logged.map(\.remoteIP)), ["127.0.0.12"], "the origin sees the last relay only")
    }

    func testGetOverHTTP3ReportsTheVersionAndFailsClosed() async throws {
        let origin = try XCTUnwrap(Self.origin, "caddy did not start on 127.0.5.3 (run scripts/setup.sh)")
        let marker = TestServers.marker("get")
        let run = await CommandRun.run(["get", "-sS", "-o", "/dev/null", "-w", "%{http_version}", "--origin-protocol", "h3",
                                        "\(origin.url)/about.html?\(marker)"] + Self.http3Relays)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdoutText, "3")
        let down = await CommandRun.run(["get", "-sS", "--origin-protocol", "h3", "--connect-timeout", "3", "--relay", "https://127.0.0.13:4433",
                                         "--relay-protocol", "h3", "--cacert", TestServers.caFile, "\(origin.url)/about.html?\(marker)-down"])
        XCTAssertNotEqual(down.status, 0)
        XCTAssertTrue(down.stderr.contains("hop 1"), down.stderr)
        XCTAssertEqual(try origin.requests(containing: "\(marker)-down", settle: 1).count, 0, "nothing reached the origin around the relay")
    }

    /// -v names each relay hop and the origin's QUIC connection, as TCP routes name their hops;
    /// the HAR times the QUIC handshake of the exchange that opened the connection (connect and
    /// ssl, which QUIC does at once) and of none that reused it.
    func testVerboseNamesTheOriginConnectionAndTheHARTimesItsHandshake() async throws {
        let origin = try XCTUnwrap(Self.origin, "caddy did not start on 127.0.5.3 (run scripts/setup.sh)")
        let marker = TestServers.marker("verbose")
        let run = await CommandRun.run(["get", "-v", "-o", "/dev/null", "--origin-protocol", "h3", "\(origin.url)/about.html?\(marker)"] + Self.http3Relays)
        XCTAssertEqual(run.status, 0, run.stderr)
        let lines = run.stderr.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains { $0.hasPrefix("* hop 1 (127.0.0.11:4433, QUIC, HTTP/3") && $0.contains("tunnel open after") }, run.stderr)
        XCTAssertTrue(lines.contains { $0.hasPrefix("* hop 2 (127.0.0.12:4433, QUIC, HTTP/3") && $0.contains("tunnel open after") }, run.stderr)
        XCTAssertTrue(lines.contains { $0.hasPrefix("* origin \(origin.host):\(origin.port) (QUIC, HTTP/3") && $0.contains("connected after") },
                      run.stderr)

        let har = folder.appendingPathComponent("timed.har")
        let page = await CommandRun.run(["page", "\(origin.url)/index.html?\(marker)-page", "--har", har.path, "--origin-protocol", "h3"] + Self.http3Relays)
        XCTAssertEqual(page.status, 0, page.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: har)) as? [String: Any])
        let entries = try XCTUnwrap((json["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        let timings = try entries.map { try XCTUnwrap($0["timings"] as? [String: Double]) }
        let first = try XCTUnwrap(timings.first)
        XCTAssertGreaterThan(first["ssl"] ?? -1, 0, "the first exchange set up the QUIC connection: \(first)")
        XCTAssertGreaterThan(first["connect"] ?? -1, first["ssl"] ?? 0, "connect holds the tunnels and the handshake: \(first)")
        for (entry, timing) in zip(entries, timings) {
            let sum = timing.filter { $0.key != "ssl" }.values.filter { $0 > 0 }.reduce(0, +)
            XCTAssertEqual(entry["time"] as? Double ?? -1, sum, accuracy: 0.002, "HAR timings add up to the entry's time: \(timing)")
        }
        XCTAssertTrue(timings.dropFirst().contains { $0["connect"] == -1 && $0["ssl"] == -1 }, "a later exchange reused the connection: \(timings)")
        let hops = try XCTUnwrap(entries.first?["_relayChainTimings"] as? [[String: Any]])
        XCTAssertEqual(hops.compactMap { $0["hop"] as? String }, ["127.0.0.11:4433", "127.0.0.12:4433"], "the hops the connection's tunnel opened")
        XCTAssertTrue(hops.allSatisfy { ($0["tunnelOpen"] as? Double ?? -1) > 0 }, "\(hops)")
    }
}
