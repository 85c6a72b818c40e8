import Foundation
import XCTest
@testable import OAuthFlow

/// ID token times a provider signs but no `Int` holds (`exp` of -1e300): the expiry check's
/// message converted them to `Int` and trapped, ending the process when the error was printed.
/// Signed with the RFC 8037 A.1 Ed25519 key, whose public half is `JWSVectorTests.ed25519Key`.
final class IDTokenRangeTests: XCTestCase {
    private static let rfc8037PrivateKey = "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A"

    private func signingKey() throws -> JWSSigningKey {
        // PKCS#8 PrivateKeyInfo for Ed25519 is this fixed prefix and the 32-byte seed.
        let der = Data([0x30, 0x2E, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20])
            + (try XCTUnwrap(Base64URL.decode(Self.rfc8037PrivateKey)))
        return try JWSSigningKey(pem: Data("-----BEGIN PRIVATE KEY-----\n\(der.base64EncodedString())\n-----END PRIVATE KEY-----\n".utf8))
    }

    func testExpiryBeyondIntIsReportedAsExpired() throws {
        let keys = JSONWebKeySet(keys: [try XCTUnwrap(JSONWebKey(try XCTUnwrap(JSONValue.parse(Data(JWSVectorTests.ed25519Key.utf8)))))])
        let validator = IDTokenValidator(issuer: "https://idp.test", clientID: "client", keys: keys)
        for exp in [-1e300, -9.3e18] {
            let token = try signingKey().sign(claims: .object(["iss": .string("https://idp.test"), "aud": .string("client"),
                                                               "exp": .number(exp), "iat": .number(1_800_000_000)]))
            XCTAssertThrowsError(try validator.validate(token, nonce: nil, now: Date(timeIntervalSince1970: 1_800_000_000))) { error in
                guard case .idToken(.expired)? = (error as? OAuthError)?.detail else { return XCTFail("\(error)") }
                XCTAssertTrue("\(error)".contains("expired at -"), "\(error)")
            }
        }
    }
}
