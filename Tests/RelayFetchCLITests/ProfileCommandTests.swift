import Foundation
import XCTest
import RelayFetchTestSupport

/// `relayfetch profile check|show` on the samples in Profiles/, and `--profile` on `get`.
final class ProfileCommandTests: XCTestCase {
    private let profiles = TestServers.repository.appendingPathComponent("Profiles").path
    private var sampleCA: String { "\(profiles)/certs/sample-ca.pem" }

    func testCheckExplainsEverySample() async {
        let expectations: [(String, [String])] = [
            ("two-hop-corporate.mobileconfig", ["hop 1: HTTP/2 https://ingress.corp.example.com:443, HTTP/3 https://ingress.corp.example.com:443",
                                                "hop 2: HTTP/2 https://egress.relay.example.net:443",
                                                "headers: Proxy-Authorization (values not shown)",
                                                "covers: domains corp.example.com, internal.example.com; except www.corp.example.com (and subdomains)",
                                                "warning: the profile is not signed"]),
            ("split-domains.mobileconfig", ["relay payload 2 (com.example.relay.split.partner):",
                                            "hosts wiki.example.com; except public.internal.example.com (and subdomains), status.internal.example.com"]),
            ("client-certificate.mobileconfig", ["client identity: O=Example Corp,CN=relay client alice", "pinned key: sha256//"]),
            ("two-hop-corporate.signed.mobileconfig", ["signature: signed by O=Example Corp,CN=Example Corp Profile Signing, trusted"]),
        ]
        for (file, lines) in expectations {
            let run = await CommandRun.run(["profile", "check", "\(profiles)/\(file)", "--profile-cacert", sampleCA])
            XCTAssertEqual(run.status, 0, run.stderr)
            for line in lines { XCTAssertTrue(run.stdoutText.contains(line), "\(file) lacks \(line):\n\(run.stdoutText)") }
            XCTAssertFalse(run.stdoutText.contains("token="), "header values must not be printed")
        }
    }

    func testInvalidProfileExitsOneWithTheKeyPath() async {
        let run = await CommandRun.run(["profile", "check", "\(profiles)/invalid/plain-http-relay.mobileconfig"])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("plain-http-relay.mobileconfig: PayloadContent[0].Relays[0].HTTP2RelayURL: not an https URL"), run.stderr)
        let missing = await CommandRun.run(["profile", "check", "/nonexistent.mobileconfig"])
        XCTAssertEqual(missing.status, 1)
        let usage = await CommandRun.run(["profile", "show", "\(profiles)/split-domains.mobileconfig"])
        XCTAssertEqual(usage.status, 2)
    }

    func testShowPrintsJSON() async throws {
        let run = await CommandRun.run(["profile", "show", "\(profiles)/split-domains.mobileconfig", "--json"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
        let payloads = try XCTUnwrap(object["relayPayloads"] as? [[String: Any]])
        XCTAssertEqual(payloads.count, 2)
        XCTAssertEqual(payloads[0]["excludedFQDNs"] as? [String], ["status.internal.example.com"])
        let relays = try XCTUnwrap(payloads[0]["relays"] as? [[String: Any]])
        XCTAssertEqual(relays[0]["headerNames"] as? [String], ["Proxy-Authorization"])
    }

    func testGetWithAProfileRoutesByDomain() async throws {
        try TestServers.ensureRunning()
        let plist: [String: Any] = ["PayloadType": "Configuration", "PayloadContent": [[
            "PayloadType": "com.apple.relay.managed", "MatchDomains": ["internal.test"],
            "Relays": [["HTTP2RelayURL": "https://127.0.0.11:4433", "RawPublicKeys": [try TestServers.relayPublicKeyDER()],
                        "AdditionalHTTPHeaderFields": ["Proxy-Authorization": TestServers.relayToken]]],
        ]]]
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-cli-\(UUID().uuidString).mobileconfig")
        try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let marker = TestServers.marker("cliprofile")
        let relayed = await CommandRun.run(["get", "https://internal.test/index.html?\(marker)", "--profile", file.path, "--cacert", TestServers.caFile, "-o", "/dev/null"])
        XCTAssertEqual(relayed.status, 0, relayed.stderr)
        XCTAssertTrue(relayed.stderr.contains("relayfetch: warning: \(file.path): the profile is not signed"), relayed.stderr)
        let direct = await CommandRun.run(["get", "https://public.test/index.html?\(marker)", "--profile", file.path, "--cacert", TestServers.caFile,
                                           "--resolve", "public.test:443:127.0.0.22", "-o", "/dev/null"])
        XCTAssertEqual(direct.status, 0, direct.stderr)
        // nginx logs after the last byte is sent, so the client may exit before the line is written.
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first?.first, "127.0.0.11")
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originBLog, containing: marker, skipping: 0).first?.first, "127.0.0.1")
        let both = await CommandRun.run(["get", "https://internal.test/", "--profile", file.path, "--relay", "https://r"])
        XCTAssertEqual(both.status, 2)
    }
}

/// `relayfetch page` from the command line.
final class PageCommandTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testPageJSONAndHAR() async throws {
        let har = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: har) }
        let run = await CommandRun.run(["page", "https://origin.test/full/index.html", "--complete", "--json", "--har", har.path] + CommandRun.relayArguments)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stderr, "", "no progress line when stderr is not a terminal")
        let summary = try XCTUnwrap(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
        XCTAssertEqual(summary["status"] as? Int, 200)
        XCTAssertEqual(summary["failed"] as? Int, 0)
        XCTAssertEqual((summary["resources"] as? [Any])?.count, 38)
        XCTAssertEqual(summary["relayChain"] as? [String], ["127.0.0.11:3129"])
        XCTAssertNotNil(try JSONSerialization.jsonObject(with: Data(contentsOf: har)))
        let plain = await CommandRun.run(["page", "https://origin.test/full/index.html", "--complete"] + CommandRun.relayArguments)
        XCTAssertTrue(plain.stdoutText.hasPrefix("https://origin.test/full/index.html: 200, 38 subresources,"), plain.stdoutText)
        let bad = await CommandRun.run(["page", "https://origin.test/", "--frame-depth", "-1"])
        XCTAssertEqual(bad.status, 2)
    }
}

/// `relayfetch get --ohttp-relay URL --ohttp-keys FILE|URL`.
final class ObliviousCommandTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testGetThroughOHTTPWithKeysFromAFileAndFromTheRelay() async throws {
        // A file, the relay's key resource, and RFC 9540 discovery at the gateway itself, which
        // only a relay chain may reach (the gateway must never see the client's address).
        let discovery = "http://127.0.0.31:8081/.well-known/ohttp-gateway"
        let earlierGatewayTunnels = try TestServers.logLines(TestServers.relayLog, containing: "127.0.0.31:8081").count
        for (keys, chain) in [(TestServers.ohttpKeysFile.path, []), ("https://127.0.0.30/ohttp-keys", []), (discovery, CommandRun.relayArguments)] {
            let marker = TestServers.marker("cliohttp")
            let run = await CommandRun.run(["get", "https://origin.test/index.html?\(marker)", "--ohttp-relay", "https://127.0.0.30/relay",
                                            "--ohttp-keys", keys, "--cacert", TestServers.caFile, "-i"] + chain)
            XCTAssertEqual(run.status, 0, run.stderr)
            XCTAssertTrue(run.stdoutText.hasPrefix("OHTTP 200\r\n"), run.stdoutText)
            XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first?.first, "127.0.0.32")
        }
        // The discovery request reached the gateway through relay A.
        let gatewayTunnels = try TestServers.waitForLogLines(TestServers.relayLog, containing: "127.0.0.31:8081", skipping: earlierGatewayTunnels)
        XCTAssertEqual(gatewayTunnels.first?[2], "CONNECT", "squid log: \(gatewayTunnels)")
        let direct = await CommandRun.run(["get", "https://origin.test/", "--ohttp-relay", "https://127.0.0.30/relay", "--ohttp-keys", discovery])
        XCTAssertEqual(direct.status, 2)
        XCTAssertTrue(direct.stderr.contains("would be fetched directly, telling 127.0.0.31 your address"), direct.stderr)
        let lonely = await CommandRun.run(["get", "https://origin.test/", "--ohttp-relay", "https://127.0.0.30/relay"])
        XCTAssertEqual(lonely.status, 2)
        XCTAssertTrue(lonely.stderr.contains("--ohttp-relay and --ohttp-keys go together"), lonely.stderr)
    }
}
