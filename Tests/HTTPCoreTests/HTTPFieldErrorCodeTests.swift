import XCTest
import HTTPCore

/// `HTTPFieldError.Code` is an open set, as `FetchError.Code` is: compared with `==`, matched
/// with a `default:`, the field's name in `fieldName`, never its value.
final class HTTPFieldErrorCodeTests: XCTestCase {
    func testARefusedFieldGivesItsCodeAndName() {
        let injected: HTTPFields = [("X-Note", "a\r\nX-Injected: yes")]
        XCTAssertThrowsError(try injected.validate()) { error in
            let error = error as? HTTPFieldError
            XCTAssertEqual(error?.code, .invalidValue)
            XCTAssertEqual(error?.fieldName, "X-Note")
            XCTAssertFalse(error.map { "\($0)" }?.contains("Injected") ?? true, "the value stays out of the text")
        }
        let badName: HTTPFields = [("Bad Name", "v")]
        XCTAssertThrowsError(try badName.validate()) { error in
            switch (error as? HTTPFieldError)?.code {
            case .invalidName?: XCTAssertEqual((error as? HTTPFieldError)?.fieldName, "Bad Name")
            default: XCTFail("\(error)")
            }
        }
        XCTAssertEqual(HTTPFieldError.Code.invalidName.description, "invalidName")
    }
}
