import XCTest
@testable import PrivacyPass

/// RFC 9578 Appendix A, both issuance protocols, every vector byte for byte: the TokenRequest from
/// the challenge, nonce and blind (and salt), the issuer's TokenResponse, and the finished Token.
final class IssuanceVectorTests: XCTestCase {
    func testType1VOPRFVectors() throws {
        let vectors = try TestVectors.list("rfc9578-type1.json")
        XCTAssertEqual(vectors.count, 5)
        for v in vectors {
            XCTAssertEqual(hexString(try VOPRFP384.publicKey(secretKey: hex(v["skS"]!))), v["pkS"])
            let issuance = try TokenIssuance(tokenType: .privateP384, tokenKey: hex(v["pkS"]!))
            let challenge = try TokenChallenge(parsing: hex(v["token_challenge"]!))
            XCTAssertEqual(hexString(challenge.serialized()), v["token_challenge"])
            let pending = try issuance.request(for: challenge, nonce: hex(v["nonce"]!), blind: hex(v["blind"]!))
            XCTAssertEqual(hexString(pending.request.serialized()), v["token_request"])
            XCTAssertEqual(try TokenRequest(parsing: hex(v["token_request"]!)), pending.request)
            let response = hex(v["token_response"]!)
            let evaluated = try VOPRFP384.blindEvaluate(secretKey: hex(v["skS"]!), blindedElements: [pending.request.blindedMessage])
            XCTAssertEqual(evaluated.evaluatedElements, [Array(response.prefix(49))], "the issuer's evaluation")
            let token = try issuance.finish(pending, response: response)
            XCTAssertEqual(hexString(token.serialized()), v["token"])
            XCTAssertEqual(try Token(parsing: hex(v["token"]!)), token)
        }
    }

    func testType2BlindRSAVectors() throws {
        let vectors = try TestVectors.list("rfc9578-type2.json")
        XCTAssertEqual(vectors.count, 5)
        for v in vectors {
            let signer = try BlindRSASigner(pem: hex(v["skS"]!))
            XCTAssertEqual(hexString(TokenIssuance.tokenKey(for: signer.publicKey)), v["pkS"], "the SPKI with the RSASSA-PSS OID")
            let issuance = try TokenIssuance(tokenType: .publicRSA2048, tokenKey: hex(v["pkS"]!))
            let challenge = try TokenChallenge(parsing: hex(v["token_challenge"]!))
            // The vectors' blind is r itself, the factor whose e-th power blinds the message.
            let pending = try issuance.request(for: challenge, nonce: hex(v["nonce"]!), salt: hex(v["salt"]!), blind: hex(v["blind"]!))
            XCTAssertEqual(hexString(pending.request.serialized()), v["token_request"])
            let response = try signer.blindSign(pending.request.blindedMessage)
            XCTAssertEqual(hexString(response), v["token_response"])
            let token = try issuance.finish(pending, response: response)
            XCTAssertEqual(hexString(token.serialized()), v["token"])
            XCTAssertTrue(try TokenIssuance.verifyPublicToken(token, tokenKey: hex(v["pkS"]!)))
        }
    }

    func testATokenDoesNotVerifyForAnotherChallengeOrKey() throws {
        let v = try TestVectors.list("rfc9578-type2.json")
        var token = try Token(parsing: hex(v[0]["token"]!))
        let otherKey = TokenIssuance.tokenKey(for: try BlindRSASigner.generate().publicKey)
        XCTAssertFalse(try TokenIssuance.verifyPublicToken(token, tokenKey: otherKey))
        token.tokenKeyID = SHA.sha256(otherKey)
        XCTAssertFalse(try TokenIssuance.verifyPublicToken(token, tokenKey: otherKey), "the signature is under the vector's key")
        token = try Token(parsing: hex(v[0]["token"]!))
        XCTAssertTrue(try TokenIssuance.verifyPublicToken(token, tokenKey: hex(v[0]["pkS"]!)))
        token.challengeDigest[0] ^= 1
        XCTAssertFalse(try TokenIssuance.verifyPublicToken(token, tokenKey: hex(v[0]["pkS"]!)))
    }
}
