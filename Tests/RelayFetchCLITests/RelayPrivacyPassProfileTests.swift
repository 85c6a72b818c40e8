import Foundation
import XCTest
import RelayFetchTestSupport

/// The profile keys `RelayPrivacyPassIssuer` and `RelayPrivacyPassOAuthScenario` (relayfetch's
/// own, per relay) do what `--relay-privacy-pass` and `--relay-privacy-pass-oauth` do: a
/// profile's HTTP/2 relay (nghttpx in front of the Privacy Pass front) gets its 407 answered with
/// a token from an issuer that issues only on the test IdP's access token.
final class RelayPrivacyPassProfileTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testProfileKeysGiveTheRelayAnAttestedIssuer() async throws {
        let fronts = try PrivacyPassFronts(.http2, issuerArguments: [
            "--introspect-client", "\(IdentityProvider.serviceClientID):\(IdentityProvider.serviceClientSecret)",
            "--upstream", "127.0.0.12:3128", "--upstream-token", TestServers.relayBToken,
        ], openTargets: ["idp.test:443"])
        defer { fronts.stop() }
        let relay = try XCTUnwrap(fronts.http2)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("privacy-pass-profile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(atPath: try TokenRelayFront.scenarioFile(), toPath: folder.appendingPathComponent("attest.json").path)
        let profile = Self.profile(relayKeys: """
            <key>HTTP2RelayURL</key><string>\(relay.url.absoluteString)</string>
            <key>RawPublicKeys</key><array><data>\(try relay.publicKeyDER().base64EncodedString())</data></array>
            <key>RelayPrivacyPassIssuer</key><string>\(fronts.issuerURL)</string>
            <key>RelayPrivacyPassOAuthScenario</key><string>attest.json</string>
            """)
        let path = folder.appendingPathComponent("privacy-pass.mobileconfig").path
        try Data(profile.utf8).write(to: URL(fileURLWithPath: path))
        let marker = TestServers.marker("ppprofile")
        let run = await CommandRun.run(["get", "-v", "https://origin.test/index.html?\(marker)", "--profile", path, "--cacert", TestServers.caFile])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("Privacy Pass token from \(fronts.issuerURL)"), run.stderr)

        // The issuer issued once, seen from relay B, on the IdP's token (its subject logged).
        let issued = try fronts.issuer.events().filter { $0.hasPrefix("ISSUED\t") }.map { $0.components(separatedBy: "\t") }
        XCTAssertEqual(issued.count, 1, "\(issued)")
        XCTAssertEqual(issued.first?[1], "127.0.0.12")
        XCTAssertEqual(issued.first?.last, IdentityProvider.serviceClientID)
        XCTAssertEqual(try fronts.front.events().filter { $0.hasPrefix("REDEEMED\t") }.map { $0.components(separatedBy: "\t")[1] }, ["origin.test:443"])
        let origin = try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0)
        XCTAssertEqual(origin.values(OriginLogField.remoteAddress), ["127.0.0.12"])
        XCTAssertEqual(origin.values(OriginLogField.proxyAuthorization), ["-"])
    }

    /// An attestation scenario without an issuer, or an issuer that is not a URL, fails the
    /// profile naming the key.
    func testKeysAreChecked() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("privacy-pass-profile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (keys, expected) in [
            ("<key>RelayPrivacyPassOAuthScenario</key><string>attest.json</string>", "needs RelayPrivacyPassIssuer beside it"),
            ("<key>RelayPrivacyPassIssuer</key><string>issuer.example</string>", "not an issuer URL such as https://issuer.example"),
        ] {
            let profile = Self.profile(relayKeys: "<key>HTTP2RelayURL</key><string>https://127.0.23.3:1</string>\n" + keys)
            let path = folder.appendingPathComponent("pp.mobileconfig").path
            try Data(profile.utf8).write(to: URL(fileURLWithPath: path))
            let run = await CommandRun.run(["get", "https://origin.test/", "--profile", path])
            XCTAssertNotEqual(run.status, 0, run.stderr)
            XCTAssertTrue(run.stderr.contains(expected), run.stderr)
        }
    }

    /// A profile with one managed relay payload whose one relay has `relayKeys`.
    private static func profile(relayKeys: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0"><dict>
        <key>PayloadContent</key><array><dict>
        <key>PayloadIdentifier</key><string>com.example.relay.privacy-pass</string>
        <key>PayloadType</key><string>com.apple.relay.managed</string>
        <key>PayloadUUID</key><string>7D1E0A52-0000-4000-8000-0000000027B1</string>
        <key>PayloadVersion</key><integer>1</integer>
        <key>Relays</key><array><dict>
        \(relayKeys)
        </dict></array>
        </dict></array>
        <key>PayloadIdentifier</key><string>com.example.privacy-pass</string>
        <key>PayloadType</key><string>Configuration</string>
        <key>PayloadUUID</key><string>7D1E0A52-0000-4000-8000-0000000027B0</string>
        <key>PayloadVersion</key><integer>1</integer>
        </dict></plist>
        """
    }
}
