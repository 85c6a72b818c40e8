import Foundation
import XCTest
import OAuthFlow

/// `OAuthError.Code` is an open set, as `FetchError.Code` is: values compared with `==` and
/// matched with a `default:`, the condition's values as properties; a scenario file's error is
/// an `OAuthError` too (the module's one error), its text as before.
final class OAuthErrorCodeTests: XCTestCase {
    private func classify(_ code: OAuthError.Code) -> String {
        switch code {
        case .stateMismatch, .issuerMismatch, .missingIssuer: return "callback"
        case .scenarioFile: return "input"
        default: return "other"
        }
    }

    func testAScenarioFileErrorHasItsCodeFileAndPath() throws {
        XCTAssertThrowsError(try OAuthScenario.load(Data(#"{"name": 3}"#.utf8), file: "bad.json")) { error in
            let error = error as? OAuthError
            XCTAssertEqual(error?.code, .scenarioFile)
            XCTAssertEqual(error?.file, "bad.json")
            XCTAssertEqual(error?.path, "$.name")
            XCTAssertEqual(error.map { "\($0)" }, "bad.json: $.name must be String")
            XCTAssertEqual(error.map { classify($0.code) }, "input")
            XCTAssertNil(error?.status)
        }
        XCTAssertThrowsError(try OAuthScenario.load(Data("{".utf8), file: "x.json")) {
            XCTAssertEqual("\($0)", "x.json: $ not JSON")
        }
    }

    func testCodesCompareAndNameThemselves() {
        XCTAssertEqual(OAuthError.Code.tokenEndpoint.description, "tokenEndpoint")
        XCTAssertEqual(Set([OAuthError.Code.idToken, .idToken, .userinfo]).count, 2)
        XCTAssertEqual(classify(.missingIssuer), "callback")
        XCTAssertEqual(classify(.discovery), "other")
    }
}
