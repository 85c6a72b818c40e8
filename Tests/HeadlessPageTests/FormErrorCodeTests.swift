import Foundation
import XCTest
import HeadlessPage
import HTMLDOM

/// `FormError.Code` is an open set, as `FetchError.Code` is: compared with `==`, matched with a
/// `default:`, the field in `key`; the texts are the ones the enum gave.
final class FormErrorCodeTests: XCTestCase {
    func testFillingAMissingFieldGivesItsCodeAndKey() throws {
        let url = URL(string: "https://origin.test/login")!
        let html = #"<form action="/go"><input name="user"><input type="submit" name="go" value="Go"></form>"#
        var form = try XCTUnwrap(HTMLDocument(data: Data(html.utf8), url: url)?.forms(documentURL: url).first)
        XCTAssertThrowsError(try form.fill("password", with: "x")) { error in
            let error = error as? FormError
            XCTAssertEqual(error?.code, .noSuchField)
            XCTAssertEqual(error?.key, "password")
            XCTAssertEqual(error.map { "\($0)" }, "the form has no enabled field named \"password\" (by name, id or label)")
            switch error?.code {
            case .noSuchField?: break
            default: XCTFail("\(String(describing: error))")
            }
        }
        XCTAssertThrowsError(try form.submitter("stay")) { XCTAssertEqual(($0 as? FormError)?.code, .noSuchSubmitter) }
        XCTAssertEqual(FormError.Code.dialogMethod.description, "dialogMethod")
    }
}
