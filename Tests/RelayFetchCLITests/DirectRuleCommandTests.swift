import Foundation
import XCTest
import RelayFetchTestSupport

/// No command goes direct by accident: `get`, `page` and `oauth` without a relay (no --relay,
/// --profile or --ohttp-relay) refuse with exit 2 and say how to give relays, unless --direct
/// says so; `crawl` never goes direct. The origins' logs show the refused runs sent nothing,
/// and the --direct runs (the control) that the same command does reach them directly.
final class DirectRuleCommandTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    /// Where origin A and the identity provider are when reached directly (only the relays
    /// resolve their names), and the test CA.
    private let originDirectly = ["--resolve", "origin.test:443:127.0.0.21", "--cacert", TestServers.caFile]
    private let providerDirectly = ["--resolve", "idp.test:443:127.0.0.23", "--cacert", TestServers.caFile]

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
            let run = await CommandRun.run([command, "https://origin.test/index.html?\(direct)-\(command)", "--direct"] + originDirectly)
            XCTAssertEqual(run.status, 0, run.stderr)
            // The control: the log is live, and the same command reaches the origin from this host.
            let lines = try TestServers.waitForLogLines(TestServers.originALog, containing: "\(direct)-\(command)", skipping: 0)
            XCTAssertEqual(lines.first?.first, "127.0.0.1", "reached directly")
        }
        XCTAssertEqual(try TestServers.logLines(TestServers.originALog, containing: refused), [], "a refused run reached the origin")
    }

    func testOAuthWithoutARelayRefusesAndSendsNothing() async throws {
        setenv("SERVICE_SECRET", IdentityProvider.serviceClientSecret, 1)
        let scenario = TestServers.repository.appendingPathComponent("Samples/oauth/client-credentials.json").path
        let before = try IdentityProvider.requests().count
        assertRefused(await CommandRun.run(["oauth", scenario] + providerDirectly), "oauth")
        XCTAssertEqual(try IdentityProvider.requests().count, before, "a refused run reached the identity provider")
        let direct = await CommandRun.run(["oauth", scenario, "--direct"] + providerDirectly)
        XCTAssertEqual(direct.status, 0, direct.stdoutText + direct.stderr)
        let seen = try IdentityProvider.requests().dropFirst(before)
        XCTAssertTrue(seen.contains { $0.clientAddress == "127.0.0.1" }, "the provider saw no direct request: \(seen)")
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
