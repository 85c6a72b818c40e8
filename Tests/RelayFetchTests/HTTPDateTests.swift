import Foundation
import XCTest
@testable import RelayFetch

/// HTTP dates in every form RFC 9110 §5.6.7 allows and the cookie variants, against epoch
/// seconds worked out independently (`date -u -d ... +%s`).
final class HTTPDateTests: XCTestCase {
    func testTheThreeHTTPFormsAndCookieVariantsMeanTheSameInstant() {
        let expected = 784_111_777.0  // Sun, 06 Nov 1994 08:49:37 GMT (RFC 9110's example)
        for text in ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
                     "Sun, 06-Nov-1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 +0000", "Sun, 06 Nov 1994 09:49:37 +0100",
                     "Sun, 06 Nov 1994 03:49:37 -0500", "sun, 6 nov 1994 8:49:37 utc"] {
            XCTAssertEqual(HTTPDate.parse(text)?.timeIntervalSince1970, expected, text)
        }
    }

    func testKnownInstantsAcrossCenturiesAndLeapDays() {
        let cases: [(String, Double)] = [
            ("Thu, 01 Jan 1970 00:00:00 GMT", 0),
            ("Wed, 31 Dec 1969 23:59:59 GMT", -1),
            ("Tue, 29 Feb 2000 12:00:00 GMT", 951_825_600),
            ("Tue, 19 Jan 2038 03:14:08 GMT", 2_147_483_648),
            ("Thu, 01 Jan 2099 00:00:00 GMT", 4_070_908_800),
            ("Mon, 01 Jan 1601 00:00:00 GMT", -11_644_473_600),
            ("Fri, 01-Jan-10 00:00:00 GMT", 1_262_304_000),  // two-digit years below 70 are 20xx
        ]
        for (text, seconds) in cases {
            XCTAssertEqual(HTTPDate.parse(text)?.timeIntervalSince1970, seconds, text)
            if seconds >= 0 || text.hasPrefix("Wed") {
                XCTAssertEqual(HTTPDate.format(Date(timeIntervalSince1970: seconds)), text.contains("-Jan-10") ? "Fri, 01 Jan 2010 00:00:00 GMT" : text)
            }
        }
        XCTAssertEqual(HTTPDate.format(Date(timeIntervalSince1970: 784_111_777.9)), "Sun, 06 Nov 1994 08:49:37 GMT")
    }

    func testImpossibleDatesAreNoDates() {
        for text in ["", "Sun, 06 Nov 1994", "Sun, 06 Nov 1994 25:00:00 GMT", "Sun, 31 Nov 1994 08:49:37 GMT",
                     "Thu, 29 Feb 2001 00:00:00 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1500 08:49:37 GMT",
                     "08:49:37", "Sun, 06 Nov 1994 08:49 GMT", "Sun, 00 Nov 1994 08:49:37 GMT"] {
            XCTAssertNil(HTTPDate.parse(text), text)
        }
    }

    func testRoundTripOverManyInstants() {
        var seconds = -2_000_000_000.0
        while seconds < 4_000_000_000 {
            let text = HTTPDate.format(Date(timeIntervalSince1970: seconds))
            XCTAssertEqual(HTTPDate.parse(text)?.timeIntervalSince1970, seconds, text)
            seconds += 7_654_321
        }
    }
}
