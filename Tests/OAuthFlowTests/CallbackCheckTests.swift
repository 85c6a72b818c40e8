import Foundation
import XCTest
@testable import OAuthFlow

/// The redirect's checks (RFC 6749 §10.12 state, RFC 9207 iss, OAuth errors), on URLs.
final class CallbackCheckTests: XCTestCase {
    private let issuer = "https://origin.test:1/o"

    private func code(_ query: String) throws -> String {
        try AuthorizationCodeFlow.code(from: URL(string: "com.example.app:/callback?\(query)")!, state: "s1", issuer: issuer)
    }

    func testCodeArrivesOnlyWithTheStateSent() throws {
        XCTAssertEqual(try code("code=abc&state=s1"), "abc")
        XCTAssertEqual(try code("code=abc&state=s1&iss=https%3A%2F%2Forigin.test%3A1%2Fo"), "abc")
        for (query, expected) in [("code=abc&state=s2", OAuthError(.stateMismatch)), ("code=abc", OAuthError(.stateMismatch)),
                                  ("code=abc&state=s1&iss=https://evil.test", OAuthError(.issuerMismatch("https://evil.test"))),
                                  ("error=access_denied&error_description=no&state=s1",
                                   OAuthError(.authorizationDenied(error: "access_denied", description: "no"))),
                                  ("state=s1", OAuthError(.missingCode))] {
            XCTAssertThrowsError(try code(query), query) { XCTAssertEqual($0 as? OAuthError, expected, query) }
        }
    }
}
