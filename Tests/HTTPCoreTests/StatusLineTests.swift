import XCTest
import HTTPCore

/// The one status-line parser: libcurl's lines for every response and its own CONNECT answer,
/// and the HTTP/1.1 CONNECT hop's answer.
final class StatusLineTests: XCTestCase {
    func testReadsEachVersionAsLibcurlWritesIt() {
        let cases: [(String, StatusLine)] = [
            ("HTTP/1.0 200 OK\r\n", StatusLine(version: "HTTP/1.0", status: 200, reason: "OK")),
            ("HTTP/1.1 204 No Content\r\n", StatusLine(version: "HTTP/1.1", status: 204, reason: "No Content")),
            // libcurl writes HTTP/2 and HTTP/3 heads with a space after the code and no reason.
            ("HTTP/2 200 \r\n", StatusLine(version: "HTTP/2", status: 200, reason: "")),
            ("HTTP/3 404 \r\n", StatusLine(version: "HTTP/3", status: 404, reason: "")),
            ("HTTP/2.0 301 Moved", StatusLine(version: "HTTP/2", status: 301, reason: "Moved")),
            ("HTTP/1.1 200", StatusLine(version: "HTTP/1.1", status: 200, reason: "")),
            ("HTTP/1.1 200\n", StatusLine(version: "HTTP/1.1", status: 200, reason: "")),
        ]
        for (line, expected) in cases { XCTAssertEqual(StatusLine(line), expected, line.debugDescription) }
    }

    func testReasonPhraseKeepsItsSpacesAndText() {
        XCTAssertEqual(StatusLine("HTTP/1.1 407 Proxy Authentication Required\r\n")?.reason, "Proxy Authentication Required")
        XCTAssertEqual(StatusLine("HTTP/1.1 200 Connection  established")?.reason, "Connection  established")
        XCTAssertEqual(StatusLine("HTTP/1.1 200 Já")?.reason, "Já")
    }

    /// The CONNECT parser's cases (found by its fuzz target): three digits from 100 to 599 only.
    func testStatusCodesAreThreeDigitsFromOneHundredToFiveNinetyNine() {
        for line in ["HTTP/1.1 900 Continue", "HTTP/1.1 +20 OK", "HTTP/1.1 -99 No", "HTTP/1.1 099 Early", "HTTP/1.1 2\u{0}0 OK",
                     "HTTP/1.1 ２００ OK", "HTTP/1.1 2000 OK", "HTTP/1.1 20 OK", "HTTP/1.1 600 Beyond"] {
            XCTAssertNil(StatusLine(line), line.debugDescription)
        }
        XCTAssertEqual(StatusLine("HTTP/1.1 599 Custom")?.status, 599)
        XCTAssertEqual(StatusLine("HTTP/1.1 100 Continue")?.status, 100)
    }

    func testMalformedLinesAreRefused() {
        for line in ["", "\r\n", "SSH-2.0-OpenSSH", "HTTP/1.1", "HTTP/1.1 ", "HTTP/1.1  200 OK", "http/1.1 200 OK", "HTTP/1 200 OK",
                     "HTTP/1.1x 200 OK", "HTTP/x 200 OK", "HTTP/ 200 OK", "HTTP/11.1 200 OK", "ICY 200 OK", "Content-Type: text/html",
                     " HTTP/1.1 200 OK", "HTTP/1.1\t200 OK"] {
            XCTAssertNil(StatusLine(line), line.debugDescription)
        }
    }

    func testSuccessIsTwoHundredSomething() {
        XCTAssertEqual(["HTTP/2 200 ", "HTTP/1.1 299 X", "HTTP/1.1 199 X", "HTTP/1.1 300 X"].map { StatusLine($0)?.isSuccess }, [true, true, false, false])
        XCTAssertTrue(ResponseHead.isSuccess("HTTP/1.1 206 Partial Content\r\n"))
        XCTAssertFalse(ResponseHead.isSuccess(nil))
        XCTAssertFalse(ResponseHead.isSuccess("garbage 200"))
    }

    /// What a response gets from its head: HTTP/1.1 and 0 for no or a malformed status line.
    func testResponseHeadFallsBackForMissingOrMalformedLines() {
        XCTAssertEqual(ResponseHead.statusLine("HTTP/2 200 \r\n").version, "HTTP/2")
        XCTAssertEqual(ResponseHead.statusLine("HTTP/2 200 \r\n").status, 200)
        XCTAssertEqual(ResponseHead.statusLine(nil).version, "HTTP/1.1")
        XCTAssertEqual(ResponseHead.statusLine("nonsense").status, 0)
        let fields = ResponseHead.fields(["HTTP/1.1 200 OK\r\n", "Content-Type:  text/html \r\n", "no colon\r\n", ": empty name\r\n",
                                          "Set-Cookie: a=1\r\n", "set-cookie:b=2\r\n"])
        XCTAssertEqual(fields, [("Content-Type", "text/html"), ("Set-Cookie", "a=1"), ("set-cookie", "b=2")])
        XCTAssertEqual(fields["set-cookie"], "a=1")
    }
}
