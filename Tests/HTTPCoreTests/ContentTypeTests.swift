import XCTest
import HTTPCore

/// The one Content-Type parser, over the cases each of the three copies it replaced handled
/// (the page loader's, the crawler's link extractor's, the session's accepted media types).
final class ContentTypeTests: XCTestCase {
    func testMediaTypeIsTrimmedAndLowerCased() {
        XCTAssertEqual(ContentType("text/html").mediaType, "text/html")
        XCTAssertEqual(ContentType("Text/HTML; charset=UTF-8").mediaType, "text/html")
        XCTAssertEqual(ContentType("  application/xhtml+xml\t;charset=utf-8").mediaType, "application/xhtml+xml")
        XCTAssertNil(ContentType(nil).mediaType)
        XCTAssertNil(ContentType("").mediaType)
        XCTAssertNil(ContentType(" ; charset=utf-8").mediaType)
    }

    func testCharsetParameter() {
        // The page loader's cases: "charset=" with quotes of either kind.
        XCTAssertEqual(ContentType("text/html; charset=ISO-8859-1").charset, "ISO-8859-1", "case kept")
        XCTAssertEqual(ContentType("text/html;charset=\"utf-8\"").charset, "utf-8")
        XCTAssertEqual(ContentType("text/html; charset='windows-1252'").charset, "windows-1252")
        // The link extractor's cases: the name in any case, spaces around "=", another parameter first.
        XCTAssertEqual(ContentType("text/html; CHARSET = utf-16le").charset, "utf-16le")
        XCTAssertEqual(ContentType("text/html; boundary=x; charset=Shift_JIS").charset, "Shift_JIS")
        XCTAssertNil(ContentType("text/html").charset)
        XCTAssertNil(ContentType("text/html; charsets=utf-8").charset)
        XCTAssertNil(ContentType("text/html; xcharset=utf-8").charset)
        XCTAssertNil(ContentType(nil).charset)
    }

    /// The session's `acceptedMediaTypes`: the type itself or its wildcard, any case.
    func testMatchesTypesAndWildcards() {
        XCTAssertTrue(ContentType("text/html; charset=utf-8").matches(any: ["text/html"]))
        XCTAssertTrue(ContentType("TEXT/PLAIN").matches(any: ["image/png", "text/*"]))
        XCTAssertTrue(ContentType("text/html").matches(any: ["Text/HTML"]))
        XCTAssertFalse(ContentType("text/html").matches(any: ["text/htm", "image/*"]))
        XCTAssertFalse(ContentType(nil).matches(any: ["text/html", "/*"]))
        XCTAssertFalse(ContentType("").matches(any: ["", "/*"]))
        XCTAssertEqual(ContentType("image/svg+xml").wildcard, "image/*")
    }

    /// Found by the header-fields fuzz target: ";" followed by a combining mark (U+0347) is one
    /// Character, so a split on Characters kept "cea;\u{347}..." as the media type.
    func testSeparatorsAreScalarsNotGraphemes() {
        XCTAssertEqual(ContentType("cea;\u{347}x; charset=\u{347}utf-8").mediaType, "cea")
        XCTAssertEqual(ContentType("text/html;charset=\u{301}koi8-r").charset, "\u{301}koi8-r")
        XCTAssertEqual(ContentType("text/html; charset= \u{301}x").charset, "\u{301}x")
        XCTAssertEqual(" \u{301}a \t".trimmingHTTPWhitespace(), "\u{301}a")
        XCTAssertEqual(ContentType("text/plain; charset=\"\"").charset, "")
    }
}
