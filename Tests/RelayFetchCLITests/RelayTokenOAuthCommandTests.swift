import Foundation
import XCTest
import RelayFetchTestSupport

/// `--relay-token-oauth`: a hop's bearer token from the test identity provider (django-oauth-
/// toolkit, client credentials), sent to a relay front that admits only the provider's tokens
/// (`TokenRelayFront`, which checks each by introspection and forwards to relay B). The front's
/// log shows what it verified, the provider's which tokens it issued, the origin's and relay B's
/// where the token went.
final class RelayTokenOAuthCommandTests: XCTestCase {
    private func frontArguments(_ front: TokenRelayFront, scenario: String) throws -> [String] {
        ["--relay", front.url.absoluteString, "--relay-protocol", "h1", "--relay-pin", try TokenRelayFront.pin(),
         "--relay-token-oauth", scenario, "--cacert", TestServers.caFile]
    }

    private func issuedByProvider(_ token: String) throws -> Bool {
        try IdentityProvider.secrets().contains { $0.name == "access_token" && $0.value == token }
    }

    /// Every line of `log` (which must exist) that holds `token`.
    private func lines(of log: URL, holding token: String) throws -> [[String]] {
        try TestServers.allLogLines(log).filter { $0.joined(separator: "\t").contains(token) }
    }

    func testFetchThroughTokenFrontWithTheProvidersToken() async throws {
        let front = try TokenRelayFront()
        let scenario = try TokenRelayFront.scenarioFile()
        let marker = TestServers.marker("idptoken")
        let relayBBefore = try TestServers.logLines(TestServers.relayBLog, containing: "origin.test:443").count
        let run = await CommandRun.run(["get", "-v", "https://origin.test/index.html?\(marker)"] + (try frontArguments(front, scenario: scenario)))
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("* hop 1: access token from https://idp.test/o (client_credentials) in "), run.stderr)

        let decisions = try front.decisions()
        let verified = decisions.filter { $0.kind == "VERIFIED" }
        XCTAssertEqual(verified.map(\.authority), ["origin.test:443"], "\(decisions)")
        XCTAssertEqual(verified.first?.detail, IdentityProvider.serviceClientID, "the token's subject")
        XCTAssertEqual(verified.first?.peer, "127.0.0.1")
        let token = try XCTUnwrap(verified.first?.token)
        XCTAssertTrue(try issuedByProvider(token), "the provider did not issue the token the front verified")
        XCTAssertFalse(run.stderr.contains(token), "-v printed the token")
        // The provider was reached through the front (asked without a token), so it saw relay B.
        let open = decisions.filter { $0.kind == "OPEN" }
        XCTAssertFalse(open.isEmpty, "the token request did not go through the front: \(decisions)")
        XCTAssertEqual(Set(open.map(\.authority)), ["idp.test:443"])
        XCTAssertEqual(Set(open.map(\.detail)), ["had-token=False"])

        let origin = try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0)
        XCTAssertEqual(origin.values(OriginLogField.remoteAddress), ["127.0.0.12"], "the origin saw the relay's address")
        XCTAssertEqual(try lines(of: TestServers.originALog, holding: token), [], "the token reached the origin")
        // squid logs a tunnel when it closes: ending the front closes its tunnels to relay B.
        front.server.stop()
        let tunnels = try TestServers.waitForLogLines(TestServers.relayBLog, containing: "origin.test:443", skipping: relayBBefore)
        XCTAssertFalse(tunnels.isEmpty, "relay B logged no tunnel to the origin: the check below proves nothing")
        XCTAssertEqual(try lines(of: TestServers.relayBLog, holding: token), [], "the token went past the front")
    }

    /// A chain of the front (hop 1, the provider's token) and relay B (hop 2, its fixed token):
    /// relay B and the origin never see the provider's token; hop 2 gets its own.
    func testTwoHopChainKeepsTheTokenOnItsHop() async throws {
        let front = try TokenRelayFront()
        let scenario = try TokenRelayFront.scenarioFile()
        let marker = TestServers.marker("idptoken2")
        let relayBBefore = try TestServers.logLines(TestServers.relayBLog, containing: "origin.test:443").count
        let run = await CommandRun.run(["get", "https://origin.test/index.html?\(marker)"] + (try frontArguments(front, scenario: scenario))
                                       + ["--relay", TestServers.relayBURL.absoluteString, "--relay-cacert", TestServers.caFile,
                                          "--relay-header", "Proxy-Authorization: \(TestServers.relayBToken)"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let verified = try front.decisions().filter { $0.kind == "VERIFIED" }
        XCTAssertEqual(verified.map(\.authority), ["127.0.0.12:3129"], "hop 1 was asked for hop 2")
        let token = try XCTUnwrap(verified.first?.token)
        XCTAssertTrue(try issuedByProvider(token))

        front.server.stop()  // squid logs a tunnel when it closes
        let tunnels = try TestServers.waitForLogLines(TestServers.relayBLog, containing: "origin.test:443", skipping: relayBBefore)
        XCTAssertFalse(tunnels.isEmpty, "relay B logged no tunnel to the origin: the checks below prove nothing")
        XCTAssertEqual(Set(tunnels.values(SquidLogField.proxyAuthorization)), [TestServers.relayBToken], "hop 2 got its own token only")
        XCTAssertEqual(try lines(of: TestServers.relayBLog, holding: token), [], "the token reached hop 2")
        let origin = try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0)
        XCTAssertEqual(origin.values(OriginLogField.remoteAddress), ["127.0.0.12"])
        XCTAssertEqual(try lines(of: TestServers.originALog, holding: token), [], "the token reached the origin")
    }

    /// The relay refuses a valid token once (as after an early revocation): a fresh one is
    /// fetched from the provider and the tunnel built again.
    func testRefusedTokenIsReplacedOnceAndTheTunnelRetried() async throws {
        let front = try TokenRelayFront(refuseValid: 1)
        let scenario = try TokenRelayFront.scenarioFile()
        let run = await CommandRun.run(["get", "https://origin.test/index.html?\(TestServers.marker("idptoken407"))"]
                                       + (try frontArguments(front, scenario: scenario)))
        XCTAssertEqual(run.status, 0, run.stderr)
        let decisions = try front.decisions().filter { $0.kind != "OPEN" }
        XCTAssertEqual(decisions.map(\.kind), ["REFUSED", "VERIFIED"], "\(decisions)")
        guard decisions.count == 2 else { return }
        let (refused, verified) = (decisions[0].token, decisions[1].token)
        XCTAssertNotEqual(refused, verified, "the refused token was sent again")
        XCTAssertTrue(try issuedByProvider(refused), "the first token is not the provider's")
        XCTAssertTrue(try issuedByProvider(verified), "the second token request did not reach the provider")
    }

    /// A relay that refuses the fresh token too: exit 1 with an error naming the hop, after
    /// exactly one retry.
    func testRelayRefusingTheFreshTokenFailsNamingTheHop() async throws {
        let front = try TokenRelayFront(refuseValid: -1)
        let scenario = try TokenRelayFront.scenarioFile()
        let marker = TestServers.marker("idptokenrefused")
        let run = await CommandRun.run(["get", "https://origin.test/index.html?\(marker)"] + (try frontArguments(front, scenario: scenario)))
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("hop 1 (127.0.4.1:\(front.server.port)"), run.stderr)
        XCTAssertTrue(run.stderr.contains("refused the identity provider's token again"), run.stderr)
        let refused = try front.decisions().filter { $0.kind == "REFUSED" }
        XCTAssertEqual(refused.count, 2, "one retry with a fresh token: \(refused)")
        XCTAssertEqual(Set(refused.map(\.token)).count, 2)
        XCTAssertFalse(try front.decisions().contains { $0.kind == "VERIFIED" })
        XCTAssertEqual(try TestServers.logLines(TestServers.originALog, containing: marker), [])
    }

    /// The provider is down (its address accepts and closes): exit 1 naming the hop, and the
    /// provider's address was only ever reached through the relays (relay B's address).
    func testProviderDownFailsNamingTheHopNeverDirect() async throws {
        let down = try HostileServer(script: "closing_server.py", host: "127.0.4.2")
        let authority = "127.0.4.2:\(down.port)"
        let front = try TokenRelayFront(openTargets: [authority])
        let scenario = try TokenRelayFront.scenarioFile(tokenEndpoint: "https://\(authority)/o/token/")
        let marker = TestServers.marker("idptokendown")
        let run = await CommandRun.run(["get", "https://origin.test/index.html?\(marker)"] + (try frontArguments(front, scenario: scenario)))
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("hop 1 (127.0.4.1:\(front.server.port)"), run.stderr)
        XCTAssertTrue(run.stderr.contains("no relay token from the identity provider"), run.stderr)
        let peers = try down.events().map { $0.components(separatedBy: "\t") }
        XCTAssertFalse(peers.isEmpty, "nothing tried to reach the provider: the check below proves nothing")
        XCTAssertEqual(Set(peers.map { $0.last ?? "" }), ["127.0.0.12"], "the provider was reached other than through the relays")
        XCTAssertFalse(try front.decisions().contains { $0.kind == "VERIFIED" })
        XCTAssertEqual(try TestServers.logLines(TestServers.originALog, containing: marker), [])
    }

    func testUnusableScenarioFileIsAUsageError() async throws {
        let folder = FileManager.default.temporaryDirectory
        let notJSON = folder.appendingPathComponent("relay-token-\(UUID().uuidString).json")
        try Data("grant: client_credentials".utf8).write(to: notJSON)
        let browserGrant = folder.appendingPathComponent("relay-token-\(UUID().uuidString).json")
        try Data(#"{"name": "x", "issuer": "https://idp.test/o", "client": {"id": "public-app"}, "redirectURI": "com.example.app:/cb", "login": {"username": "a", "password": "b"}}"#.utf8)
            .write(to: browserGrant)
        let relay = ["--relay", "https://127.0.4.1:1"]
        for (arguments, expected) in [
            (relay + ["--relay-token-oauth", notJSON.path], "--relay-token-oauth \(notJSON.path): $ not JSON"),
            (relay + ["--relay-token-oauth", browserGrant.path], "--relay-token-oauth \(browserGrant.path): $.grant must be client_credentials or device_code"),
            (relay + ["--relay-token-oauth", "/nonexistent/scenario.json"], "--relay-token-oauth /nonexistent/scenario.json: no such readable file"),
            (["--relay-token-oauth", notJSON.path] + relay, "--relay-token-oauth must follow the --relay it applies to"),
        ] {
            let run = await CommandRun.run(["get", "https://origin.test/"] + arguments)
            XCTAssertEqual(run.status, 2, "\(arguments): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains(expected), "\(arguments): \(run.stderr)")
        }
    }

    /// A profile's relay with `RelayTokenOAuthScenario` (a path relative to the profile) gets its
    /// token as `--relay-token-oauth` would.
    func testProfileKeyGivesTheRelayItsToken() async throws {
        let front = try TokenRelayFront()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("relay-token-profile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(atPath: try TokenRelayFront.scenarioFile(), toPath: folder.appendingPathComponent("token.json").path)
        let profile = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict>
            <key>PayloadContent</key><array><dict>
            <key>PayloadIdentifier</key><string>com.example.relay.idp-token</string>
            <key>PayloadType</key><string>com.apple.relay.managed</string>
            <key>PayloadUUID</key><string>7D1E0A52-0000-4000-8000-0000000027A1</string>
            <key>PayloadVersion</key><integer>1</integer>
            <key>Relays</key><array><dict>
            <key>HTTP2RelayURL</key><string>\(front.url.absoluteString)</string>
            <key>RawPublicKeys</key><array><data>\(try TestServers.relayPublicKeyDER().base64EncodedString())</data></array>
            <key>RelayTokenOAuthScenario</key><string>token.json</string>
            </dict></array>
            </dict></array>
            <key>PayloadIdentifier</key><string>com.example.idp-token</string>
            <key>PayloadType</key><string>Configuration</string>
            <key>PayloadUUID</key><string>7D1E0A52-0000-4000-8000-0000000027A0</string>
            <key>PayloadVersion</key><integer>1</integer>
            </dict></plist>
            """
        let path = folder.appendingPathComponent("idp-token.mobileconfig").path
        try Data(profile.utf8).write(to: URL(fileURLWithPath: path))
        let marker = TestServers.marker("idptokenprofile")
        let run = await CommandRun.run(["get", "https://origin.test/index.html?\(marker)", "--profile", path, "--cacert", TestServers.caFile])
        XCTAssertEqual(run.status, 0, run.stderr)
        let verified = try front.decisions().filter { $0.kind == "VERIFIED" }
        XCTAssertEqual(verified.map(\.authority), ["origin.test:443"])
        XCTAssertTrue(try issuedByProvider(try XCTUnwrap(verified.first?.token)))
        let origin = try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0)
        XCTAssertEqual(origin.values(OriginLogField.remoteAddress), ["127.0.0.12"])
    }

    /// A crawl that outlives its tokens: each page is on a host of its own (a new tunnel, so a
    /// new CONNECT with the token of the moment), one after the other, on an origin that takes
    /// 150 ms a page; tokens live a second. The relay sees several tokens, all the provider's,
    /// and refuses none.
    func testLongCrawlRenewsItsToken() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("relay-token-crawl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let origin = try HostileServer(script: "static_origin.py", arguments: ["--root", root.path, "--delay-ms", "150"])
        let pages = 12
        for page in 1...pages {
            let link = page < pages ? "<a href=\"https://h\(page + 1).origin.test:\(origin.port)/p\(page + 1).html\">next</a>" : ""
            try Data("<!doctype html><title>p\(page)</title>\(link)".utf8).write(to: root.appendingPathComponent("p\(page).html"))
        }
        let front = try TokenRelayFront()
        let scenario = try TokenRelayFront.scenarioFile(maximumTokenLifetime: 1)
        let run = await CommandRun.run(["crawl", "https://h1.origin.test:\(origin.port)/p1.html", "--same-domain", "--ignore-robots",
                                        "--no-sitemaps"] + (try frontArguments(front, scenario: scenario)))
        XCTAssertEqual(run.status, 0, run.stderr)

        let fetched = try origin.events().filter { $0.hasPrefix("REQUEST\t") }.map { $0.components(separatedBy: "\t") }
        XCTAssertEqual(Set(fetched.map { $0[5] }), Set((1...pages).map { "/p\($0).html" }), "the crawl did not fetch every page")
        XCTAssertEqual(Set(fetched.map { $0[3] }), ["127.0.0.12"], "the origin saw another address than the relay's")
        let decisions = try front.decisions().filter { $0.kind != "OPEN" }
        XCTAssertEqual(Set(decisions.map(\.kind)), ["VERIFIED"], "the relay refused a token: \(decisions)")
        XCTAssertEqual(Set(decisions.map(\.authority)), Set((1...pages).map { "h\($0).origin.test:\(origin.port)" }))
        let tokens = Set(decisions.map(\.token))
        XCTAssertGreaterThanOrEqual(tokens.count, 2, "no token was renewed during the crawl")
        for token in tokens { XCTAssertTrue(try issuedByProvider(token), "a token the provider did not issue") }
    }
}
