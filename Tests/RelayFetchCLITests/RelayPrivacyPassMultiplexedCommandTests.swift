import Foundation
import XCTest
import RelayFetchTestSupport

/// `--relay-privacy-pass` on HTTP/2 and HTTP/3 hops: the Privacy Pass front (privacy_pass_relay.py)
/// behind nghttpx (HTTP/2 CONNECT) or the aioquic relay (HTTP/3 CONNECT), which pass its 407
/// and PrivateToken challenge back on the CONNECT stream. The client issues a token through that
/// same relay and retries on a new stream with it. Every check reads the servers' logs.
final class RelayPrivacyPassMultiplexedCommandTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testHTTP2RelaysChallengeIsAnsweredOnANewStream() async throws {
        try await checkChallengeIsAnswered(.http2)
    }

    func testHTTP3RelaysChallengeIsAnsweredOnANewStream() async throws {
        try await checkChallengeIsAnswered(.http3)
    }

    private func checkChallengeIsAnswered(_ kind: PrivacyPassFronts.Kind) async throws {
        let fronts = try PrivacyPassFronts(kind)
        defer { fronts.stop() }
        let marker = TestServers.marker("ppmux")
        let run = await CommandRun.run(["get", "-v", "https://origin.test/index.html?\(marker)"] + fronts.relayArguments())
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("* hop 1 ("), run.stderr)
        XCTAssertTrue(run.stderr.contains("Privacy Pass token from \(fronts.issuerURL)"), run.stderr)

        // The front: one token redeemed for the origin, none refused; the issuer: one issuance seen from relay B.
        let frontEvents = try fronts.front.events()
        XCTAssertEqual(frontEvents.filter { $0.hasPrefix("REDEEMED\t") }.map { $0.components(separatedBy: "\t")[1] }, ["origin.test:443"], "\(frontEvents)")
        XCTAssertEqual(frontEvents.filter { $0.hasPrefix("REFUSED\t") }, [])
        XCTAssertEqual(try fronts.issuer.events().filter { $0.hasPrefix("ISSUED\t") }, ["ISSUED\t127.0.0.12\t-"])

        // The multiplexed relay: the CONNECT to the origin refused (407) without a token, then
        // accepted with the PrivateToken on the retry.
        let answers = try fronts.relayAnswers(to: "origin.test:443")
        XCTAssertEqual(answers.map(\.status), ["407", "200"], "\(answers)")
        XCTAssertEqual(answers.first?.authorization, "-")
        XCTAssertTrue(answers.last?.authorization.hasPrefix("PrivateToken token=") ?? false, "\(answers)")

        // The origin: relay B's address and no token of any kind.
        let origin = try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0, count: 1)
        XCTAssertEqual(origin.count, 1, "\(origin)")
        XCTAssertEqual(origin.values(OriginLogField.remoteAddress), ["127.0.0.12"])
        for field in [OriginLogField.authorization, .proxyAuthorization, .relayToken] {
            XCTAssertEqual(origin.values(field), ["-"], "\(field) reached the origin")
        }
        XCTAssertFalse(try TestServers.allLogLines(TestServers.originALog).contains { $0.joined(separator: "\t").contains("PrivateToken") })
    }

    /// An issuer that refuses the token request fails the fetch with the issuance's own cause,
    /// naming the hop and the issuer: not the relay's 407.
    func testIssuerRefusalIsATypedCauseNamingHopAndIssuer() async throws {
        let fronts = try PrivacyPassFronts(.http2, issuerArguments: ["--require-authorization", "Bearer attested"])
        defer { fronts.stop() }
        let marker = TestServers.marker("ppmuxrefused")
        let run = await CommandRun.run(["get", "https://origin.test/index.html?\(marker)"] + fronts.relayArguments())
        XCTAssertEqual(run.status, 1, run.stderr)
        let expected = "\(fronts.hopDescription): no Privacy Pass token from issuer 127.0.23.2:\(fronts.issuer.port): issuer refused the request: 401"
        XCTAssertTrue(run.stderr.contains(expected), run.stderr)
        XCTAssertFalse(run.stderr.contains("407"), run.stderr)
        XCTAssertEqual(try fronts.issuer.events().filter { !$0.hasPrefix("DIRECTORY") }, ["REFUSED\t127.0.0.12\tauthorization"])
        XCTAssertFalse(try fronts.front.events().contains { $0.hasPrefix("REDEEMED\t") })
        XCTAssertEqual(try TestServers.logLines(TestServers.originALog, containing: marker), [])
    }
}
