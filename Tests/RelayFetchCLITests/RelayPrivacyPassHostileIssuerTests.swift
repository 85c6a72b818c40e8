import Foundation
import XCTest
import RelayFetchTestSupport

/// Issuers that misbehave (privacy_pass_issuer.py --misbehave): one that reads the token request
/// and never answers, one that answers with a body that never ends. The fetch ends within the
/// session's limits (the connect timeout bounds an issuance, the issuance route's size limit an
/// answer) with the issuance's own typed cause; nothing goes direct, and the origin sees nothing.
final class RelayPrivacyPassHostileIssuerTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testStallingIssuerEndsWithinTheConnectTimeout() async throws {
        try await checkMisbehaving("stall", connectTimeout: 3, event: "STALLED", failure: "issuer unreachable")
    }

    func testFloodingIssuerEndsAtTheSizeLimit() async throws {
        try await checkMisbehaving("flood", connectTimeout: 10, event: "FLOODING",
                                   failure: "bad answer from the issuer: its answer to /token-request exceeds 65536 bytes")
    }

    /// A fetch through the front whose issuer misbehaves ends with exit 1 before the connect
    /// timeout has passed (stall: the timeout itself; flood: the size limit, well before) plus
    /// curl's 5 s, naming the hop and the issuer.
    private func checkMisbehaving(_ misbehaviour: String, connectTimeout: Int, event: String, failure: String) async throws {
        let fronts = try PrivacyPassFronts(.http1, issuerArguments: ["--misbehave", misbehaviour])
        defer { fronts.stop() }
        let marker = TestServers.marker("pp" + misbehaviour)
        let started = Date()
        let run = await CommandRun.run(["get", "https://origin.test/index.html?\(marker)", "--connect-timeout", String(connectTimeout)]
                                       + fronts.relayArguments())
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertLessThan(elapsed, Double(connectTimeout) + 5, "the issuance outlived the session's limits")
        XCTAssertTrue(run.stderr.contains("\(fronts.hopDescription): no Privacy Pass token from issuer 127.0.23.2:\(fronts.issuer.port): \(failure)"),
                      run.stderr)
        try checkNothingElseHappened(fronts, marker: marker, event: event)
    }

    /// The issuer misbehaved toward relay B only (never the client's address); no token was
    /// redeemed; the origin log (which must exist) has no line of this fetch.
    private func checkNothingElseHappened(_ fronts: PrivacyPassFronts, marker: String, event: String) throws {
        let issuerEvents = try fronts.issuer.events()
        XCTAssertEqual(issuerEvents.filter { $0.hasPrefix(event + "\t") }, ["\(event)\t127.0.0.12"], "\(issuerEvents)")
        XCTAssertFalse(issuerEvents.contains { $0.hasPrefix("ISSUED\t") })
        let frontEvents = try fronts.front.events()
        XCTAssertFalse(frontEvents.contains { $0.hasPrefix("REDEEMED\t") }, "\(frontEvents)")
        XCTAssertEqual(frontEvents.filter { $0.hasPrefix("CHALLENGE\t") }, ["CHALLENGE\torigin.test:443"], "one challenge, never retried untokened")
        XCTAssertEqual(try TestServers.logLines(TestServers.originALog, containing: marker), [])
    }
}
