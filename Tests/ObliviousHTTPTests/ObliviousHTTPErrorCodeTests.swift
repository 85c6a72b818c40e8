import Foundation
import XCTest
import ObliviousHTTP

/// `ObliviousHTTPError.Code` is an open set, as `FetchError.Code` is: compared with `==`,
/// matched with a `default:`, named by its `description` in the error's text as before.
final class ObliviousHTTPErrorCodeTests: XCTestCase {
    func testADecodingErrorHasItsCodeAndText() {
        XCTAssertThrowsError(try BinaryHTTPRequest(decoding: Data([0x07]))) { error in
            let error = error as? ObliviousHTTPError
            XCTAssertEqual(error?.code, .invalidFramingIndicator)
            XCTAssertTrue(error.map { "\($0)" }?.hasPrefix("invalidFramingIndicator: ") ?? false, "\(String(describing: error))")
            switch error?.code {
            case .truncated?, .malformedMessage?: XCTFail("\(String(describing: error))")
            default: break
            }
        }
        XCTAssertEqual(ObliviousHTTPError.Code.authenticationFailed.description, "authenticationFailed")
    }
}
