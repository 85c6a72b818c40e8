import Foundation
import XCTest
import RelayFetchTestSupport

extension ProcessLevelPrivacyTests {
    /// A whole login under strace through relays A and B, its redirect URI a loopback port
    /// nothing listens on: the process dials only relay A (never 127.0.0.1:PORT), resolves no
    /// name, writes no file.
    func testOAuthLoginDialsOnlyTheRelayNeverTheRedirectURI() throws {
        let port = UInt16.random(in: 20_000...60_000)
        let scenario = FileManager.default.temporaryDirectory.appendingPathComponent("oauth-strace-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: scenario) }
        try Data(#"""
        {"name": "traced login", "issuer": "\#(IdentityProvider.issuer)", "scopes": ["openid"],
         "client": {"id": "\#(IdentityProvider.confidentialClientID)", "auth": "client_secret_basic",
                    "secret": "\#(IdentityProvider.confidentialClientSecret)"},
         "redirectURI": "http://127.0.0.1:\#(port)/callback",
         "login": {"username": "\#(IdentityProvider.username)", "password": "\#(IdentityProvider.password)"}}
        """#.utf8).write(to: scenario)
        let (status, output, trace) = try traced(["oauth", scenario.path] + CommandRun.twoHopRelayArguments)
        XCTAssertEqual(status, 0, output)
        XCTAssertTrue(output.contains("PASS traced login"), output)
        assertDialledOnly(Self.relayA, in: trace)
        XCTAssertFalse(trace.calls.contains { $0.contains("htons(\(port))") }, "the redirect URI's port was dialled")
        XCTAssertEqual(trace.fileWrites, [], "the flow wrote to disk")
    }
}
