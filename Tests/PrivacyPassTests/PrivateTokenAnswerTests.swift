import XCTest
@testable import PrivacyPass

/// Choosing and answering a challenge: the first supported one with a known key is answered with
/// a token that verifies; a challenge whose token-key contradicts the issuer's published key is
/// refused before any issuance; nothing answerable gives nil.
final class PrivateTokenAnswerTests: XCTestCase {
    func testAnswersTheFirstSupportedChallengeAndRefusesAForeignKey() throws {
        let signer = try BlindRSASigner.generate()
        let key = TokenIssuance.tokenKey(for: signer.publicKey)
        let challenge = TokenChallenge(tokenType: 2, issuerName: Array("issuer.test".utf8), redemptionContext: [UInt8](repeating: 9, count: 32))
        let offered = PrivateTokenChallenge(challenge: challenge, challengeBytes: challenge.serialized(), tokenKey: key, maxAge: 60)
        var issued = 0
        let credential = try XCTUnwrap(try PrivateTokenAnswer.credential(headerValues: ["Basic realm=x", offered.headerValue()],
                                                                         issuerKeys: [.publicRSA2048: key]) { request in
            issued += 1
            return try signer.blindSign(request.blindedMessage)
        })
        XCTAssertEqual(issued, 1)
        let encoded = try XCTUnwrap(AuthenticationChallenge.parse(credential).first?.parameters["token"])
        let token = try Token(parsing: XCTUnwrap(Base64URL.decode(encoded)))
        XCTAssertEqual(token.challengeDigest, challenge.digest, "bound to this challenge and its redemption context")
        XCTAssertTrue(try TokenIssuance.verifyPublicToken(token, tokenKey: key))

        let other = TokenIssuance.tokenKey(for: try BlindRSASigner.generate().publicKey)
        XCTAssertThrowsError(try PrivateTokenAnswer.credential(headerValues: [offered.headerValue()], issuerKeys: [.publicRSA2048: other]) { _ in
            XCTFail("no issuance for a foreign key")
            return []
        }) { XCTAssertEqual($0 as? PrivacyPassError, .malformedChallenge("the challenge's token-key is not the issuer's published key")) }
        XCTAssertNil(try PrivateTokenAnswer.credential(headerValues: ["Basic realm=x"]) { _ in [] })
    }
}
