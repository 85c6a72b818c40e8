import XCTest
@testable import RelayTransport

final class ConnectResponseParserTests: XCTestCase {
    func testTwoHundredOpensTheTunnelAndKeepsEarlyBytes() {
        var parser = ConnectResponseParser()
        XCTAssertEqual(parser.feed(Array("HTTP/1.1 200 Connection estab".utf8)), .needMore)
        XCTAssertEqual(parser.feed(Array("lished\r\nVia: x\r\n\r\nABC".utf8)),
                       .established(status: 200, leftover: Array("ABC".utf8)))
    }

    func testAnyTwoHundredSomethingOpensTheTunnel() {
        var parser = ConnectResponseParser()
        XCTAssertEqual(parser.feed(Array("HTTP/1.0 204 No Content\r\n\r\n".utf8)), .established(status: 204, leftover: []))
    }

    func testInterimResponsesAreSkipped() {
        var parser = ConnectResponseParser()
        XCTAssertEqual(parser.feed(Array("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\n".utf8)),
                       .established(status: 200, leftover: []))
    }

    func testRefusalsCarryStatusAndReason() {
        for (line, status, reason) in [("HTTP/1.1 407 Proxy Authentication Required", 407, "Proxy Authentication Required"),
                                       ("HTTP/1.1 403 Forbidden", 403, "Forbidden"),
                                       ("HTTP/1.1 502 Bad Gateway", 502, "Bad Gateway")] {
            var parser = ConnectResponseParser()
            XCTAssertEqual(parser.feed(Array("\(line)\r\nContent-Length: 0\r\n\r\n".utf8)), .refused(status: status, reason: reason))
        }
    }

    func testGarbageAndOversizedHeadsAreMalformed() {
        var parser = ConnectResponseParser()
        guard case .malformed = parser.feed(Array("SSH-2.0-OpenSSH\r\n\r\n".utf8)) else { return XCTFail() }
        var big = ConnectResponseParser()
        guard case .malformed = big.feed(Array(repeating: UInt8(ascii: "a"), count: 70_000)) else { return XCTFail() }
    }

    /// Found by the connect-response fuzz target: 900, "+20" and "-99" passed as status codes.
    func testStatusCodesAreThreeDigitsFromOneHundredToFiveNinetyNine() {
        for line in ["HTTP/1.1 900 Continue", "HTTP/1.1 +20 OK", "HTTP/1.1 -99 No", "HTTP/1.1 099 Early", "HTTP/1.1 2\u{0}0 OK", "HTTP/1.1 ２００ OK"] {
            var parser = ConnectResponseParser()
            guard case .malformed = parser.feed(Array("\(line)\r\n\r\n".utf8)) else { return XCTFail("\(line.debugDescription) was accepted") }
        }
        var parser = ConnectResponseParser()
        XCTAssertEqual(parser.feed(Array("HTTP/1.1 599 Custom\r\n\r\n".utf8)), .refused(status: 599, reason: "Custom"))
    }

    func testAnOversizedHeadIsMalformedEvenWhenItArrivesInOneRead() {
        var parser = ConnectResponseParser()
        let head = "HTTP/1.1 200 OK\r\nX-Padding: " + String(repeating: "a", count: 70_000) + "\r\n\r\n"
        guard case .malformed = parser.feed(Array(head.utf8)) else { return XCTFail("a 70 kB head opened the tunnel") }
    }

    /// A relay may send its answer a byte per read: an interim response, then a final one with
    /// 60 kB of fields, its CRLF CRLF split over four reads. The search for the head's end
    /// resumes where it stopped (from the start each time, this took 64 KiB x 32 KiB steps).
    func testAHeadArrivingAByteAtATimeIsReadOnce() {
        let head = Array(("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nX-Padding: " + String(repeating: "a", count: 60_000) + "\r\n\r\n").utf8)
        var parser = ConnectResponseParser()
        var verdict = ConnectResponseParser.Verdict.needMore
        var fed = 0
        while verdict == .needMore, fed < head.count {
            verdict = parser.feed([head[fed]])
            fed += 1
        }
        XCTAssertEqual(verdict, .established(status: 200, leftover: []))
        XCTAssertEqual(fed, head.count, "the verdict came with the head's last byte")
    }

    func testRequestHeadUsesAuthorityFormAndTheHopsHeaders() {
        let head = String(decoding: ConnectRequest.head(authority: ConnectRequest.authority(host: "::1", port: 443),
                                                        headers: [("Proxy-Authorization", "Bearer t")]), as: UTF8.self)
        XCTAssertEqual(head, "CONNECT [::1]:443 HTTP/1.1\r\nHost: [::1]:443\r\nProxy-Authorization: Bearer t\r\n\r\n")
    }
}

/// The TLS record watch that tells a clean end of an origin's TLS stream from a cut one.
final class TLSRecordWatchTests: XCTestCase {
    private func record(_ type: UInt8, _ length: Int) -> [UInt8] {
        [type, 0x03, 0x03, UInt8(length >> 8), UInt8(length & 0xff)] + [UInt8](repeating: 0xAB, count: length)
    }

    func testVerdicts() {
        var clean = TLSRecordWatch()
        clean.observe(record(0x16, 90) + record(0x17, 400))
        clean.observe(record(0x17, TLSRecordWatch.encryptedAlertLength))
        XCTAssertEqual(clean.verdict, .endedWithAlert)

        var tls12 = TLSRecordWatch()
        tls12.observe(record(0x16, 90) + record(0x17, 400) + record(0x15, 26))
        XCTAssertEqual(tls12.verdict, .endedWithAlert)

        var afterData = TLSRecordWatch()
        afterData.observe(record(0x16, 90) + record(0x17, 400))
        XCTAssertEqual(afterData.verdict, .truncated)

        var midRecord = TLSRecordWatch()
        let bytes = record(0x16, 90) + record(0x17, 400)
        midRecord.observe(Array(bytes[0..<300]))
        XCTAssertEqual(midRecord.verdict, .truncated)
        // Byte by byte, the same as at once.
        var split = TLSRecordWatch()
        for byte in record(0x16, 90) + record(0x17, 19) { split.observe([byte]) }
        XCTAssertEqual(split.verdict, .endedWithAlert)

        var plain = TLSRecordWatch()
        plain.observe(Array("HTTP/1.1 200 OK\r\n\r\n".utf8))
        XCTAssertEqual(plain.verdict, .notTLS)
        XCTAssertEqual(TLSRecordWatch().verdict, .notTLS)
    }
}
