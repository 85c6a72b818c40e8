import Foundation
import RelayFetchTestSupport
import XCTest
@testable import PrivacyPass

/// The loopback issuer's attestation hook (for the IdP-attested issuer): with
/// --require-authorization it issues only to a request carrying that Authorization value, and its
/// log says which requests it refused; a valid request still comes through relay B.
final class IssuerAttestationTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testTheIssuerRefusesARequestWithoutTheRequiredAuthorization() throws {
        let issuer = try HostileServer(script: "privacy_pass_issuer.py", host: "127.0.3.2", arguments: ["--require-authorization", "Bearer idp-token"])
        defer { issuer.stop() }
        let origin = "127.0.3.2:\(issuer.port)"
        let directory = try LoopbackHTTP.throughRelayB(to: origin, method: "GET", path: "/.well-known/private-token-issuer-directory")
        let listing = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(directory.body)) as? [String: Any])
        let encoded = try XCTUnwrap((listing["token-keys"] as? [[String: Any]])?.first?["token-key"] as? String)
        let issuance = try TokenIssuance(tokenType: .publicRSA2048, tokenKey: XCTUnwrap(Base64URL.decode(encoded)))
        let challenge = TokenChallenge(tokenType: 2, issuerName: Array("issuer.test".utf8))
        let pending = try issuance.request(for: challenge)
        func post(_ fields: [String: String]) throws -> LoopbackHTTP.Response {
            try LoopbackHTTP.throughRelayB(to: origin, method: "POST", path: "/token-request",
                                           fields: fields.merging(["Content-Type": TokenRequest.mediaType]) { $1 }, body: pending.request.serialized())
        }
        XCTAssertEqual(try post([:]).status, 401)
        XCTAssertEqual(try post(["Authorization": "Bearer other"]).status, 401)
        let accepted = try post(["Authorization": "Bearer idp-token"])
        XCTAssertEqual(accepted.status, 200)
        XCTAssertTrue(try TokenIssuance.verifyPublicToken(issuance.finish(pending, response: accepted.body), tokenKey: issuance.tokenKey))
        let events = try issuer.events().filter { !$0.hasPrefix("DIRECTORY") }
        XCTAssertEqual(events, ["REFUSED\t127.0.0.12\tauthorization", "REFUSED\t127.0.0.12\tauthorization", "ISSUED\t127.0.0.12\tBearer idp-token"])
    }
}
