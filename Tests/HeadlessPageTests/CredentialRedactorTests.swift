import Foundation
import XCTest
@testable import WebArchive

/// Credentials are found where an OAuth flow puts them: top-level parameters, parameters nested
/// in another parameter's URL-encoded value (a login page's `next`), fragments, form bodies,
/// JSON members and URLs inside JSON strings; and copies of them anywhere else.
final class CredentialRedactorTests: XCTestCase {
    private func redactor() -> CredentialRedactor { CredentialRedactor(sensitiveNames: HARRedaction.sensitiveNames) }

    func testNestedParametersAreRedacted() {
        var redactor = redactor()
        let login = "https://idp.test/accounts/login/?next=%2Fo%2Fauthorize%2F%3Fclient_id%3Dapp%26state%3DSTATE-1234567%26nonce%3DNONCE-1234567"
        let clean = redactor.url(login)
        XCTAssertFalse(clean.contains("STATE-1234567") || clean.contains("NONCE-1234567"), clean)
        XCTAssertTrue(clean.contains("client_id%3Dapp"), clean)
        let next = CredentialRedactor.pairs(URLComponents(string: clean)!.percentEncodedQuery!).first { $0.name == "next" }?.value
        XCTAssertEqual(next, "/o/authorize/?client_id=app&state=%5Bredacted%5D&nonce=%5Bredacted%5D")
        XCTAssertEqual(redactor.found, ["STATE-1234567", "NONCE-1234567"])
        // Twice nested, and in a fragment.
        let deeper = redactor.url("/a?x=" + "/b?y=/c%3Fcode%3DCODE-12345678".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        XCTAssertFalse(deeper.contains("CODE-12345678"), deeper)
        XCTAssertEqual(redactor.url("app:/cb#access_token=TOKEN-12345678&token_type=Bearer"), "app:/cb#access_token=%5Bredacted%5D&token_type=Bearer")
        XCTAssertEqual(redactor.url("https://idp.test/plain?page=2"), "https://idp.test/plain?page=2")
    }

    func testFormBodiesJSONAndCopiesElsewhere() throws {
        var redactor = redactor()
        XCTAssertEqual(redactor.form("username=alice&password=pw+with+space&next=%2Fo%2F%3Fstate%3DS-123456789"),
                       "username=alice&password=%5Bredacted%5D&next=/o/?state%3D%255Bredacted%255D")
        let json = redactor.json(["device_code": "DEVICE-123456", "user_code": "ABCD-EFGH",
                                  "verification_uri_complete": "https://idp.test/o/device/?user_code=ABCD-EFGH", "interval": 5] as [String: Any])
        let text = String(decoding: try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
        XCTAssertEqual(text, #"{"device_code":"[redacted]","interval":5,"user_code":"[redacted]","verification_uri_complete":"https://idp.test/o/device/?user_code=%5Bredacted%5D"}"#)
        XCTAssertTrue(redactor.found.isSuperset(of: ["pw with space", "S-123456789", "DEVICE-123456", "ABCD-EFGH"]))
        // A copy of a found value elsewhere (a title, a header) is blanked too, as sent and encoded;
        // short values are not searched for.
        XCTAssertEqual(SecretRedactor(secrets: redactor.scrubbable).redact("title S-123456789, header DEVICE-123456, pw with space, pw%20with%20space"),
                       "title [redacted], header [redacted], [redacted], %5Bredacted%5D")
    }

    /// Secrets that need escaping are blanked as they are and in each percent-encoding (either
    /// case of hex, spaces as `+` or `%20`); an encoding not foreseen blanks the whole text.
    func testSecretRedactorFindsEncodedForms() {
        let secret = #"p&w<o>r"d\ 100% é秘"#
        let redactor = SecretRedactor(secrets: [secret, ""])
        XCTAssertEqual(redactor.redact("a \(secret) b"), "a [redacted] b")
        let encoded = secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        XCTAssertEqual(redactor.redact("https://x.test/?echo=\(encoded)&page=2"), "https://x.test/?echo=%5Bredacted%5D&page=2")
        XCTAssertEqual(redactor.redact("q=" + encoded.replacingOccurrences(of: "%20", with: "+").lowercased()), "q=%5Bredacted%5D")
        // Only the space left as is: no encoder writes that, but decoding still reveals it.
        XCTAssertEqual(redactor.redact("x=" + encoded.replacingOccurrences(of: "%20", with: " ")), "[redacted]")
        XCTAssertEqual(redactor.redact("nothing secret, 100% sure"), "nothing secret, 100% sure")
        XCTAssertFalse(SecretRedactor(secrets: []).reveals(secret))
    }
}
