import XCTest
import HTTPCore

final class HTTPFieldsTests: XCTestCase {
    func testNamesCompareWithoutASCIICase() {
        let fields: HTTPFields = [("Content-Type", "text/html"), ("X-Thing", "1")]
        XCTAssertEqual(fields["content-type"], "text/html")
        XCTAssertEqual(fields["CONTENT-TYPE"], "text/html")
        XCTAssertEqual(fields.values(for: "x-THING"), ["1"])
        XCTAssertTrue(fields.contains(name: "x-thing"))
        XCTAssertNil(fields["Content-Length"])
        XCTAssertFalse(fields.contains(name: "Content-Typ"), "a prefix is not the name")
    }

    func testKeepsOrderAndDuplicates() {
        var fields: HTTPFields = [("Accept", "a"), ("Via", "1"), ("accept", "b")]
        fields.append(name: "Via", value: "2")
        fields.append(("Link", "</x>"))
        XCTAssertEqual(fields.map(\.name), ["Accept", "Via", "accept", "Via", "Link"], "order and spelling as given")
        XCTAssertEqual(fields.values(for: "via"), ["1", "2"])
        XCTAssertEqual(fields.count, 5)
    }

    /// RFC 9110 §5.3: fields of one name combine into one value joined by ", ", in order.
    func testSubscriptCombinesValuesOfOneName() {
        let fields: HTTPFields = [("Cache-Control", "no-cache"), ("Vary", "Accept"), ("cache-control", "max-age=0")]
        XCTAssertEqual(fields["Cache-Control"], "no-cache, max-age=0")
    }

    /// Set-Cookie cannot be combined (a cookie's Expires holds a comma): the first value, and all
    /// of them through `values(for:)`.
    func testSetCookieIsNotCombined() {
        let fields: HTTPFields = [("Set-Cookie", "a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT"), ("set-cookie", "b=2")]
        XCTAssertEqual(fields["Set-Cookie"], "a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT")
        XCTAssertEqual(fields.values(for: "SET-COOKIE"), ["a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT", "b=2"])
    }

    func testSetReplacesInPlaceAndRemoveDropsAll() {
        var fields: HTTPFields = [("A", "1"), ("Range", "bytes=0-"), ("B", "2"), ("range", "bytes=5-")]
        fields.set(name: "RANGE", value: "bytes=9-")
        XCTAssertEqual(fields.map(\.name), ["A", "Range", "B"], "the first field of the name keeps its place, the others go")
        XCTAssertEqual(fields["range"], "bytes=9-")
        fields.set(name: "C", value: "3")
        XCTAssertEqual(fields.map(\.name).last, "C", "a new name goes at the end")
        fields["b"] = nil
        fields.removeAll(named: "a")
        XCTAssertEqual(fields.map(\.name), ["Range", "C"])
        fields["Accept"] = "text/html"
        XCTAssertEqual(fields.values(for: "accept"), ["text/html"])
    }

    /// What let code written for arrays of pairs keep working: literals, `+=`, `first { }`,
    /// `removeAll(where:)`, iteration.
    func testReadsAndBuildsLikeAnArrayOfPairs() {
        var fields: HTTPFields = ["Accept": "*/*"]
        fields += [("If-None-Match", "\"x\"")] as [(name: String, value: String)]
        fields += HTTPFields([(name: "If-Range", value: "\"x\"")])
        XCTAssertEqual(fields.first { $0.name.lowercased() == "if-range" }?.value, "\"x\"")
        fields.removeAll { $0.name.hasPrefix("If-") }
        var seen: [String] = []
        for field in fields { seen.append("\(field.name)=\(field.value)") }
        XCTAssertEqual(seen, ["Accept=*/*"])
        XCTAssertEqual(fields, [("accept", "*/*")], "equality ignores the case of names")
        XCTAssertNotEqual(fields, [("Accept", "*/* ")], "but not of values")
        XCTAssertEqual(HTTPFields(), [])
        XCTAssertEqual(Set<HTTPFields>([[("Accept", "*/*")], [("ACCEPT", "*/*")], [("Accept", "text/html")]]).count, 2, "hashing agrees with ==")
    }

    /// A CR or LF in a value would end the field and start another (request smuggling, a forged
    /// Cookie); a NUL cuts a C string short; a name must be a token.
    func testValidationRefusesInjection() {
        let refused: [(HTTPFields, HTTPFieldError)] = [
            ([("X-A", "1\r\nInjected: yes")], HTTPFieldError(.invalidValue(name: "X-A"))),
            ([("X-A", "1\nInjected: yes")], HTTPFieldError(.invalidValue(name: "X-A"))),
            ([("X-A", "1\rx")], HTTPFieldError(.invalidValue(name: "X-A"))),
            ([("X-A", "1\u{0}x")], HTTPFieldError(.invalidValue(name: "X-A"))),
            ([("X-A\r\nInjected", "1")], HTTPFieldError(.invalidName("X-A\r\nInjected"))),
            ([("X A", "1")], HTTPFieldError(.invalidName("X A"))),
            ([("X:A", "1")], HTTPFieldError(.invalidName("X:A"))),
            ([("", "1")], HTTPFieldError(.invalidName(""))),
            ([("Ok", "fine"), ("Bad", "a\r\n")], HTTPFieldError(.invalidValue(name: "Bad"))),
        ]
        for (fields, expected) in refused {
            XCTAssertThrowsError(try fields.validate(), "\(fields.map { $0 })") { XCTAssertEqual($0 as? HTTPFieldError, expected) }
            XCTAssertThrowsError(try HTTPFields(validating: Array(fields)))
        }
        XCTAssertEqual("\(HTTPFieldError(.invalidName("X\r\nY")))", "invalid header field name \"X\\r\\nY\"")
        XCTAssertFalse("\(HTTPFieldError(.invalidValue(name: "Authorization")))".contains("\r"))
    }

    func testValidationAcceptsEveryTokenCharacterAndOrdinaryValues() throws {
        let fields: HTTPFields = [("!#$%&'*+-.^_`|~09azAZ", "v"), ("X-Empty", ""), ("X-Tab", "a\tb"), ("X-UTF8", "café"), ("X-Obs", "\u{80}")]
        XCTAssertNoThrow(try fields.validate())
        XCTAssertEqual(try HTTPFields(validating: fields).count, 5)
    }
}
