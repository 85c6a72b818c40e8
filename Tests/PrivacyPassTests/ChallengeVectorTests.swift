import XCTest
@testable import PrivacyPass

/// RFC 9577 Appendix A: the TokenChallenge and Token structures (A.1) and the WWW-Authenticate
/// header values (A.2), byte for byte, including the grease and Basic challenges a client skips.
final class ChallengeVectorTests: XCTestCase {
    func testChallengeAndTokenStructures() throws {
        let vectors = try TestVectors.list("rfc9577-token.json")
        XCTAssertEqual(vectors.count, 6)
        for v in vectors where v["token_type"] == "0002" {
            let challenge = TokenChallenge(tokenType: 2, issuerName: hex(v["issuer_name"]!), redemptionContext: hex(v["redemption_context"]!),
                                           originInfo: hex(v["origin_info"]!))
            XCTAssertEqual(try TokenChallenge(parsing: challenge.serialized()), challenge)
            let input = Token.authenticatorInput(tokenType: 2, nonce: hex(v["nonce"]!), challengeDigest: challenge.digest,
                                                 tokenKeyID: hex(v["token_key_id"]!))
            XCTAssertEqual(hexString(input), v["token_authenticator_input"])
        }
        let grease = try XCTUnwrap(vectors.first { $0["token_type"] == "0000" })
        XCTAssertThrowsError(try Token(parsing: hex(grease["token_authenticator_input"]!))) {
            XCTAssertEqual($0 as? PrivacyPassError, .unsupportedTokenType(0))
        }
    }

    func testTheTokenKeyIDIsTheDigestOfTheRFC9578Key() throws {
        let key = try XCTUnwrap(TestVectors.list("rfc9578-type2.json").first?["pkS"])
        let issuance = try TokenIssuance(tokenType: .publicRSA2048, tokenKey: hex(key))
        XCTAssertEqual(hexString(issuance.tokenKeyID), try TestVectors.list("rfc9577-token.json")[0]["token_key_id"])
    }

    func testHeaderVectors() throws {
        let vectors = try JSONDecoder().decode([HeaderVector].self, from: TestVectors.data("rfc9577-headers.json"))
        XCTAssertEqual(vectors.count, 3)
        for vector in vectors {
            var expected: [PrivateTokenChallenge] = []
            for index in 0..<4 {
                guard let type = vector.params["token-type-\(index)"], type != "0x0000" else { continue }
                let bytes = hex(vector.params["token-challenge-\(index)"]!)
                expected.append(PrivateTokenChallenge(challenge: try TokenChallenge(parsing: bytes), challengeBytes: bytes,
                                                      tokenKey: vector.params["token-key-\(index)"].map(hex),
                                                      maxAge: vector.params["max-age-\(index)"].flatMap { Int($0) }))
            }
            XCTAssertEqual(try PrivateTokenChallenge.parse(headerValues: [vector.header]), expected, vector.header)
            // Every challenge is read, the skipped ones too; unknown parameters are kept, not fatal.
            let all = try AuthenticationChallenge.parse(vector.header)
            let types = vector.params.keys.filter { $0.hasPrefix("token-type-") }.count
            XCTAssertEqual(all.filter { $0.scheme == "privatetoken" }.count, types)
            XCTAssertEqual(all.filter { $0.scheme == "basic" }.map(\.parameters), vector.header.hasPrefix("Basic") ? [["realm": "grease"]] : [])
            XCTAssertEqual(all.filter { $0.parameters["unknownchallengeattribute"] == "ignore-me" }.count, expected.count)
        }
    }

    private struct HeaderVector: Decodable {
        let params: [String: String]
        let header: String
    }
}
