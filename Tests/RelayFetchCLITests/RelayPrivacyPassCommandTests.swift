import Foundation
import XCTest
import RelayFetchTestSupport

/// `--relay-privacy-pass ISSUER_URL` (and `--relay-privacy-pass-oauth FILE`): `relayfetch get`
/// through a relay front that demands Privacy Pass tokens (privacy_pass_relay.py on 127.0.3.3,
/// forwarding to relay B). The client issues each token itself, through the front (which lets
/// the issuer and the identity provider through without a token, then relay B), from an issuer
/// (privacy_pass_issuer.py on 127.0.3.4) that issues only to requests carrying an access token
/// of the test IdP, checked by introspection. Every check reads the servers' logs.
final class RelayPrivacyPassCommandTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    private struct Servers {
        let issuer: HostileServer
        let front: HostileServer
        var issuerURL: String { "http://127.0.3.4:\(issuer.port)" }
        var frontURL: String { "http://127.0.3.3:\(front.port)" }

        /// `openTargets`: authorities besides the issuer and the IdP the front admits without a token.
        init(openTargets: [String] = []) throws {
            issuer = try HostileServer(script: "privacy_pass_issuer.py", host: "127.0.3.4", arguments: [
                "--introspect-client", "\(IdentityProvider.serviceClientID):\(IdentityProvider.serviceClientSecret)",
                "--upstream", "127.0.0.12:3128", "--upstream-token", TestServers.relayBToken,
            ])
            let open = ["127.0.3.4:\(issuer.port)", "idp.test:443"] + openTargets
            front = try HostileServer(script: "privacy_pass_relay.py", host: "127.0.3.3", arguments: [
                "--issuer", "http://127.0.3.4:\(issuer.port)", "--upstream", "127.0.0.12:3128", "--upstream-token", TestServers.relayBToken,
            ] + open.flatMap { ["--open-target", $0] })
        }

        func stop() {
            front.stop()
            issuer.stop()
        }
    }

    private func arguments(_ servers: Servers, issuer: String? = nil, scenario: String) -> [String] {
        ["--relay", servers.frontURL, "--relay-privacy-pass", issuer ?? servers.issuerURL, "--relay-privacy-pass-oauth", scenario,
         "--cacert", TestServers.caFile]
    }

    func testFetchesRedeemAFreshIdPAttestedTokenPerTunnel() async throws {
        let servers = try Servers()
        defer { servers.stop() }
        let scenario = try TokenRelayFront.scenarioFile()
        let marker = TestServers.marker("privacypass")
        // Two hosts: two tunnels in one session; then a second session.
        let first = await CommandRun.run(["get", "-v", "https://origin.test/index.html?\(marker)", "https://www.origin.test/index.html?\(marker)"]
                                         + arguments(servers, scenario: scenario))
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertTrue(first.stderr.contains("* hop 1 (127.0.3.3:\(servers.front.port)): Privacy Pass token from \(servers.issuerURL)"), first.stderr)
        let second = await CommandRun.run(["get", "https://origin.test/index.html?\(marker)"] + arguments(servers, scenario: scenario))
        XCTAssertEqual(second.status, 0, second.stderr)

        // The issuer: three issuances, each seen from relay B with an IdP access token; never the target.
        let issuerEvents = try servers.issuer.events()
        let issued = issuerEvents.filter { $0.hasPrefix("ISSUED\t") }.map { $0.components(separatedBy: "\t") }
        XCTAssertEqual(issued.count, 3, "\(issuerEvents)")
        XCTAssertEqual(Set(issued.map { $0[1] }), ["127.0.0.12"], "the issuer saw an address other than relay B's")
        XCTAssertEqual(Set(issued.map { $0.count > 3 ? $0[3] : "" }), [IdentityProvider.serviceClientID], "the IdP's subject")
        let idpTokens = Set(issued.map { $0[2] })
        for authorization in idpTokens {
            XCTAssertTrue(authorization.hasPrefix("Bearer "), authorization)
            let token = String(authorization.dropFirst("Bearer ".count))
            XCTAssertTrue(try IdentityProvider.secrets().contains { $0.name == "access_token" && $0.value == token }, "not the IdP's token")
        }
        XCTAssertFalse(issuerEvents.contains { $0.contains("origin.test") }, "the issuer learnt the target: \(issuerEvents)")

        // The front: three different tokens redeemed, none refused; never the IdP's identity or token.
        let frontEvents = try servers.front.events()
        let redeemed = frontEvents.filter { $0.hasPrefix("REDEEMED\t") }
        XCTAssertEqual(redeemed.map { $0.components(separatedBy: "\t")[1] }.sorted(),
                       ["origin.test:443", "origin.test:443", "www.origin.test:443"], "\(frontEvents)")
        XCTAssertEqual(Set(redeemed.map { $0.components(separatedBy: "\t").last ?? "" }).count, 3, "a token was used twice")
        XCTAssertEqual(frontEvents.filter { $0.hasPrefix("REFUSED\t") }, [], "double spending or a bad token")
        XCTAssertFalse(frontEvents.contains { line in line.contains(IdentityProvider.serviceClientID) || idpTokens.contains { line.contains($0.dropFirst(7)) } })

        // The origin: relay B's address, and neither a Privacy Pass token nor the IdP's token.
        let origin = try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0, count: 3)
        XCTAssertEqual(origin.count, 3, "\(origin)")
        XCTAssertEqual(Set(origin.values(OriginLogField.remoteAddress)), ["127.0.0.12"])
        for field in [OriginLogField.authorization, .proxyAuthorization, .relayToken] {
            XCTAssertEqual(Set(origin.values(field)), ["-"], "\(field) reached the origin")
        }
        let everything = try TestServers.allLogLines(TestServers.originALog).map { $0.joined(separator: "\t") }
        XCTAssertFalse(everything.contains { line in line.contains("PrivateToken") || idpTokens.contains { line.contains($0.dropFirst(7)) } })
    }

    /// The issuer is down (its address accepts and closes): exit 1 naming the hop, the issuer's
    /// address reached only through the relays, the origin never.
    func testIssuerDownFailsNamingTheHopNeverDirect() async throws {
        let down = try HostileServer(script: "closing_server.py", host: "127.0.3.5")
        defer { down.stop() }
        let authority = "127.0.3.5:\(down.port)"
        let servers = try Servers(openTargets: [authority])
        defer { servers.stop() }
        let marker = TestServers.marker("privacypassdown")
        let run = await CommandRun.run(["get", "https://origin.test/index.html?\(marker)"]
                                       + arguments(servers, issuer: "http://\(authority)", scenario: try TokenRelayFront.scenarioFile()))
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertTrue(run.stderr.contains("hop 1 (127.0.3.3:\(servers.front.port), HTTP, HTTP/1.1 CONNECT): no Privacy Pass token from issuer \(authority): issuer unreachable"),
                      run.stderr)
        let peers = try down.events().map { $0.components(separatedBy: "\t") }
        XCTAssertFalse(peers.isEmpty, "nothing tried to reach the issuer: the check below proves nothing")
        XCTAssertEqual(Set(peers.map { $0.last ?? "" }), ["127.0.0.12"], "the issuer was reached other than through the relays")
        XCTAssertFalse(try servers.front.events().contains { $0.hasPrefix("REDEEMED\t") })
        XCTAssertEqual(try TestServers.logLines(TestServers.originALog, containing: marker), [])
    }

    /// The issuer refuses a request without the IdP's attestation: no token, exit 1.
    func testWithoutAttestationTheIssuerRefuses() async throws {
        let servers = try Servers()
        defer { servers.stop() }
        let marker = TestServers.marker("privacypassnoidp")
        let run = await CommandRun.run(["get", "https://origin.test/index.html?\(marker)", "--relay", servers.frontURL,
                                        "--relay-privacy-pass", servers.issuerURL, "--cacert", TestServers.caFile])
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertTrue(run.stderr.contains("hop 1 (127.0.3.3:\(servers.front.port), HTTP, HTTP/1.1 CONNECT): no Privacy Pass token from issuer 127.0.3.4:\(servers.issuer.port): issuer refused the request: 401"),
                      run.stderr)
        XCTAssertEqual(try servers.issuer.events().filter { !$0.hasPrefix("DIRECTORY") }, ["REFUSED\t127.0.0.12\tauthorization"])
        XCTAssertEqual(try TestServers.logLines(TestServers.originALog, containing: marker), [])
    }

    func testOptionsAreCheckedAsUsageErrors() async throws {
        let relay = ["--relay", "http://127.0.3.3:1"]
        for (arguments, expected) in [
            (relay + ["--relay-privacy-pass", "issuer.example"], "--relay-privacy-pass needs the issuer's URL"),
            (["--relay-privacy-pass", "https://issuer.example"] + relay, "--relay-privacy-pass must follow the --relay it applies to"),
            (relay + ["--relay-privacy-pass-oauth", "/nonexistent.json"], "--relay-privacy-pass-oauth must follow the --relay-privacy-pass it attests"),
        ] {
            let run = await CommandRun.run(["get", "https://origin.test/"] + arguments)
            XCTAssertEqual(run.status, 2, "\(arguments): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains(expected), "\(arguments): \(run.stderr)")
        }
    }
}
