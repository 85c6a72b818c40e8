import XCTest
import NameResolution

/// `ResolutionError` is the module's one error (DNS messages and resolution alike) and its
/// `Code` an open set, as `FetchError.Code` is; the texts are the ones the two errors gave.
final class ResolutionErrorCodeTests: XCTestCase {
    func testMessageErrorsHaveTheirCodesAndNoHost() {
        XCTAssertThrowsError(try DNSMessage(parsing: [0x12])) { error in
            let error = error as? ResolutionError
            XCTAssertEqual(error?.code, .truncated)
            XCTAssertEqual(error, .truncated)
            XCTAssertNil(error?.host)
            XCTAssertEqual(error.map { "\($0)" }, "the DNS message ends early")
        }
        XCTAssertThrowsError(try DNSMessage.query(id: 0, name: "a..b", type: .a)) { error in
            switch (error as? ResolutionError)?.code {
            case .badQuery?: break
            default: XCTFail("\(error)")
            }
        }
        XCTAssertEqual(ResolutionError.Code.noSuchName.description, "noSuchName")
    }
}
