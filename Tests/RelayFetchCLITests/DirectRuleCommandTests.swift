import Foundation
import XCTest
import RelayFetchTestSupport

/// No command goes direct by accident: `get`, `page` and `oauth` without a relay (no --relay,
/// --profile or --ohttp-relay) refuse with exit 2 and say how to give relays, unless --direct
/// says so; `crawl` never goes direct. The origins' logs show the refused runs sent nothing,
/// and the --direct runs (the control) that the same command does reach them directly.
final class DirectRuleCommandTests: XCTestCase {
    /// Empty folders of their own: a profile installed on this machine would otherwise relay.
    private var installed: InstalledProfiles!

    override func setUpWithError() throws {
        try TestServers.ensureRunning()
        installed = try InstalledProfiles()
    }

    override func tearDown() { installed?.remove() }

    /// Where origin A is when reached directly (only the relays resolve its name), and the test CA.
    private let originDirectly = ["--resolve", "origin.test:443:127.0.0.21", "--cacert", TestServers.caFile]

    private func assertRefused(_ run: CommandRun, _ command: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(run.status, 2, run.stdoutText + run.stderr, file: file, line: line)
        XCTAssertEqual(run.stderr, "relayfetch: \(command) needs relays (--relay, --profile or --ohttp-relay), or --direct to connect to "
                       + "origins without one (they then see your address)\n", file: file, line: line)
        XCTAssertEqual(run.stdout, Data(), file: file, line: line)
    }

    func testGetAndPageWithoutARelayRefuseAndSendNothing() async throws {
        let refused = TestServers.marker("no-relay"), direct = TestServers.marker("direct")
        for command in ["get", "page"] {
            assertRefused(await CommandRun.run([command, "https://origin.test/index.html?\(refused)-\(command)"] + originDirectly), command)
            let run = await CommandRun.run([command, "https://origin.test/index.html?\(direct)-\(command)", "--direct"] + originDirectly
                                           + (command == "get" ? ["-v", "-o", "/dev/null"] : []))
            XCTAssertEqual(run.status, 0, run.stderr)
            if command == "get" { XCTAssertTrue(run.stderr.hasPrefix("* route: direct (--direct)\n"), run.stderr) }
            // The control: the log is live, and the same command reaches the origin from this host.
            let lines = try TestServers.waitForLogLines(TestServers.originALog, containing: "\(direct)-\(command)", skipping: 0)
            XCTAssertEqual(lines.first?.first, "127.0.0.1", "reached directly")
        }
        XCTAssertEqual(try TestServers.logLines(TestServers.originALog, containing: refused), [], "a refused run reached the origin")
    }

    /// The provider is a hostile origin of this test's own (the shared identity provider's log
    /// must only ever show relay B): the refused run asks it nothing, the --direct run asks it for
    /// the discovery document (and fails on its answer, which is no JSON).
    func testOAuthWithoutARelayRefusesAndSendsNothing() async throws {
        let provider = try HostileServer(script: "origin.py")
        defer { provider.stop() }
        let scenario = FileManager.default.temporaryDirectory.appendingPathComponent("direct-rule-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: scenario) }
        try Data(#"""
        {"name": "direct", "issuer": "https://origin.test:\#(provider.port)/o", "grant": "client_credentials",
         "client": {"id": "service-app", "auth": "client_secret_basic", "secret": "direct-rule-secret"}}
        """#.utf8).write(to: scenario)
        let providerDirectly = ["--resolve", "origin.test:\(provider.port):127.0.0.21", "--cacert", TestServers.caFile]
        assertRefused(await CommandRun.run(["oauth", scenario.path] + providerDirectly), "oauth")
        XCTAssertEqual(try provider.events(), [], "a refused run reached the provider")
        let direct = await CommandRun.run(["oauth", scenario.path, "--direct"] + providerDirectly)
        XCTAssertEqual(direct.status, 1, direct.stdoutText + direct.stderr)
        XCTAssertTrue(direct.stdoutText.contains("FAIL direct: discovery"), direct.stdoutText)
        XCTAssertTrue(try provider.events().contains { $0.contains("/o/.well-known/openid-configuration") }, "the provider was not asked directly")
    }

    func testDirectIsExplicitAndAloneAndCrawlNeverGoesDirect() async {
        let cases: [([String], String)] = [
            (["get", "https://origin.test/", "--direct", "--relay", "https://r"],
             "--direct connects without relays: not with --relay, --profile or --ohttp-relay"),
            (["page", "https://origin.test/", "--relay", "https://r", "--direct"],
             "--direct connects without relays: not with --relay, --profile or --ohttp-relay"),
            (["crawl", "https://origin.test/"], "crawl needs relays (--relay, --profile or --ohttp-relay): it never fetches directly"),
            (["crawl", "https://origin.test/", "--direct"], "unknown option --direct for crawl"),
            (["crawl", "https://origin.test/", "--relay", "https://r", "--chain", "--direct"], "only relay options may follow --chain, not --direct"),
        ]
        for (arguments, expected) in cases {
            let run = await CommandRun.run(arguments)
            XCTAssertEqual(run.status, 2, "\(arguments)")
            XCTAssertTrue(run.stderr.contains(expected), "expected \(expected)\ngot \(run.stderr)")
            XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, run.stderr)
        }
    }
}
