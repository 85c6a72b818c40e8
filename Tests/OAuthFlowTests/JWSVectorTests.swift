import Foundation
import XCTest
@testable import OAuthFlow

/// JWS signature checks against the RFCs' own examples, byte for byte: RFC 7515 A.2 (RS256),
/// A.3 (ES256) and RFC 8037 A.4 (Ed25519); any changed byte must fail.
final class JWSVectorTests: XCTestCase {
    static let rs256Key = #"{"kty": "RSA", "n": "ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ", "e": "AQAB"}"#
    static let rs256JWS = "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm4Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr7t1dnZcAcQjbKBYNX4BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K0GarZRmB_eSN9383LcOLn6_dO--xi12jzDwusC-eOkHWEsqtFZESc6BfI7noOPqvhJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_IoypGlUPQGe77Rw"
    static let es256Key = #"{"kty": "EC", "crv": "P-256", "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}"#
    static let es256JWS = "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"
    static let ed25519Key = #"{"kty": "OKP", "crv": "Ed25519", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#
    static let ed25519JWS = "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc.hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg"

    private func keys(_ jwk: String) throws -> JSONWebKeySet {
        JSONWebKeySet(keys: [try XCTUnwrap(JSONWebKey(try XCTUnwrap(JSONValue.parse(Data(jwk.utf8)))))])
    }

    func testRFCExamplesVerify() throws {
        for (jwk, compact) in [(Self.rs256Key, Self.rs256JWS), (Self.es256Key, Self.es256JWS), (Self.ed25519Key, Self.ed25519JWS)] {
            XCTAssertNoThrow(try JSONWebSignature(compact: compact).verify(with: keys(jwk)), compact.prefix(24).description)
        }
        XCTAssertEqual(String(decoding: try JSONWebSignature(compact: Self.ed25519JWS).payload, as: UTF8.self), "Example of Ed25519 signing")
    }

    func testAnyChangedByteFails() throws {
        for (jwk, compact) in [(Self.rs256Key, Self.rs256JWS), (Self.es256Key, Self.es256JWS), (Self.ed25519Key, Self.ed25519JWS)] {
            let parts = compact.split(separator: ".").map(String.init)
            var signature = try XCTUnwrap(Base64URL.decode(parts[2]))
            signature[signature.count / 2] ^= 0x01
            let badSignature = parts[0] + "." + parts[1] + "." + Base64URL.encode(signature)
            var payload = try XCTUnwrap(Base64URL.decode(parts[1]))
            payload[0] ^= 0x01
            let badPayload = parts[0] + "." + Base64URL.encode(payload) + "." + parts[2]
            for tampered in [badSignature, badPayload] {
                XCTAssertThrowsError(try JSONWebSignature(compact: tampered).verify(with: keys(jwk))) {
                    XCTAssertEqual($0 as? OAuthError, OAuthError(.idToken(.signature)))
                }
            }
        }
    }

    func testWrongKeyTypeAlgorithmNoneAndUnknownKidAreNamed() throws {
        XCTAssertThrowsError(try JSONWebSignature(compact: Self.rs256JWS).verify(with: keys(Self.es256Key))) {
            XCTAssertEqual($0 as? OAuthError, OAuthError(.idToken(.unknownKey(kid: nil))))
        }
        let none = Base64URL.encode(Data(#"{"alg":"none"}"#.utf8)) + "." + Base64URL.encode(Data("{}".utf8)) + "."
        XCTAssertThrowsError(try JSONWebSignature(compact: none).verify(with: keys(Self.rs256Key))) {
            XCTAssertEqual($0 as? OAuthError, OAuthError(.idToken(.unsupportedAlgorithm("none"))))
        }
        let withKid = Base64URL.encode(Data(#"{"alg":"RS256","kid":"other"}"#.utf8)) + ".e30.AAAA"
        XCTAssertThrowsError(try JSONWebSignature(compact: withKid).verify(with: keys(Self.rs256Key))) {
            XCTAssertEqual($0 as? OAuthError, OAuthError(.idToken(.unknownKey(kid: "other"))))
        }
        XCTAssertThrowsError(try JSONWebSignature(compact: "a.b")) {
            XCTAssertEqual($0 as? OAuthError, OAuthError(.idToken(.malformed("2 parts, not 3"))))
        }
    }

    /// RFC 7636 Appendix B.
    func testPKCEChallengeMatchesRFC7636() {
        let pkce = PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", method: .s256)
        XCTAssertEqual(pkce.challenge, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        XCTAssertEqual(PKCE(verifier: "abc", method: .plain).challenge, "abc")
        XCTAssertEqual(PKCE().verifier.count, 43)
        XCTAssertNotEqual(PKCE().verifier, PKCE().verifier)
    }
}
