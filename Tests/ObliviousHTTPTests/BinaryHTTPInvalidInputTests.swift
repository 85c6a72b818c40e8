import XCTest
import ObliviousHTTP

/// Strict decoding (RFC 9292 Section 4): every kind of invalid input fails with its own code.
final class BinaryHTTPInvalidInputTests: XCTestCase {
    private func expectRequest(_ hex: String, _ code: ObliviousHTTPError.Code, limits: BinaryHTTPDecodingLimits = .default,
                               line: UInt = #line) {
        XCTAssertThrowsError(try BinaryHTTPRequest(decoding: Data(hex: hex), limits: limits), line: line) {
            XCTAssertEqual(($0 as? ObliviousHTTPError)?.code, code, "\($0)", line: line)
        }
    }

    private func expectResponse(_ hex: String, _ code: ObliviousHTTPError.Code, limits: BinaryHTTPDecodingLimits = .default,
                                line: UInt = #line) {
        XCTAssertThrowsError(try BinaryHTTPResponse(decoding: Data(hex: hex), limits: limits), line: line) {
            XCTAssertEqual(($0 as? ObliviousHTTPError)?.code, code, "\($0)", line: line)
        }
    }

    /// "GET https example.com /" control data, for building requests below.
    private let control = "034745540568747470730b6578616d706c652e636f6d012f"

    func testFramingIndicators() {
        expectRequest("04" + control, .invalidFramingIndicator)
        expectRequest("4004" + control, .invalidFramingIndicator)
        expectRequest("01" + control, .invalidFramingIndicator)
        expectRequest("03" + control, .invalidFramingIndicator)
        expectResponse("0040c8", .invalidFramingIndicator)
        expectResponse("0240c8", .invalidFramingIndicator)
        expectRequest("", .truncated)
        expectRequest("40", .truncated)
        // A non-minimal encoding of 0 is still 0.
        XCTAssertNoThrow(try BinaryHTTPRequest(decoding: Data(hex: "4000" + control)))
    }

    func testStatusCodes() {
        expectResponse("014063", .invalidStatus)      // 99
        expectResponse("01425800", .invalidStatus)    // 600
        expectResponse("01", .truncated)
        expectResponse("014064", .truncated)          // 100, then no final response
        expectResponse("03406400", .truncated)        // 100 with an empty section, then nothing
        XCTAssertEqual(try BinaryHTTPResponse(decoding: Data(hex: "0140640040c8")).informationalResponses.count, 1)
    }

    func testControlData() {
        expectRequest("00034745", .truncated)
        expectRequest("0003474554", .truncated)
        expectRequest("00" + "03474520" + "0568747470730b6578616d706c652e636f6d012f", .invalidControlData)  // "GE "
        expectRequest("00" + "00" + "0568747470730b6578616d706c652e636f6d012f", .invalidControlData)     // empty method
        expectRequest("0003474554" + "0531747470730b6578616d706c652e636f6d012f", .invalidControlData)     // scheme "1ttps"
        expectRequest("00034745540568747470730b6578616d706c652e636f6d" + "022f0a", .invalidControlData) // path with LF
        expectRequest("00034745540568747470730b6578616d706c652e636f6d" + "41002f", .truncated)       // path length past the end
    }

    func testFieldNamesAndValues() {
        expectRequest("00" + control + "09" + "06416363657074012a", .invalidFieldName)   // "Accept"
        expectRequest("00" + control + "09" + "06616363657020012a", .invalidFieldName)   // "accep "
        expectRequest("00" + control + "02" + "0000", .invalidFieldName)                   // empty name, known length
        expectRequest("00" + control + "07" + "053a706174680100", .invalidFieldName)       // ":path"
        expectRequest("00" + control + "09" + "0161013002" + "3a780131", .invalidFieldName)   // ":x" after "a"
        expectRequest("00" + control + "00" + "00" + "05" + "023a78 0131".replacingOccurrences(of: " ", with: ""), .invalidFieldName) // pseudo in trailer
        expectRequest("00" + control + "05" + "0161 02 0d0a".replacingOccurrences(of: " ", with: ""), .invalidFieldValue)
        expectRequest("00" + control + "04" + "0161 01 00".replacingOccurrences(of: " ", with: ""), .invalidFieldValue)
        expectRequest("00" + control + "05" + "0161 02 2061".replacingOccurrences(of: " ", with: ""), .invalidFieldValue)
        expectRequest("00" + control + "05" + "0161 02 6109".replacingOccurrences(of: " ", with: ""), .invalidFieldValue)
        XCTAssertNoThrow(try BinaryHTTPRequest(decoding: Data(hex: "00" + control + "05" + "0161 02 6162".replacingOccurrences(of: " ", with: ""))))
    }

    func testSectionFraming() {
        expectRequest("00" + control + "05" + "016102", .truncated)           // section longer than the input
        expectRequest("00" + control + "03" + "01610261 62".replacingOccurrences(of: " ", with: ""), .malformedMessage) // field runs past section
        expectRequest("02" + control + "016102", .truncated)                  // indeterminate field line cut short
        expectRequest("02" + control + "0161026162", .truncated)              // no section terminator
        expectRequest("02" + control + "00" + "0361", .truncated)             // content chunk cut short
        expectRequest("02" + control + "00" + "00" + "0161", .truncated)      // trailer field line cut short
        expectRequest("02" + control + "00" + "0161", .truncated)             // chunk, then no content terminator
        expectRequest("00" + control + "00" + "05616263", .truncated)         // content length past the end
        expectRequest("00" + control + "00" + "00" + "05016101", .truncated)  // trailer section cut short
        expectRequest("00" + control + "00" + "00" + "03016101", .malformedMessage) // trailer value runs past its section
    }

    func testPadding() {
        XCTAssertNoThrow(try BinaryHTTPRequest(decoding: Data(hex: "00" + control + "000000" + "00000000")))
        expectRequest("00" + control + "000000" + "0001", .invalidPadding)
        expectResponse("0140c8000000ff", .invalidPadding)
        expectResponse("0340c8000000" + "00" + "07", .invalidPadding)
    }

    func testLimits() throws {
        let request = BinaryHTTPRequest(authority: "example.com", path: "/" + String(repeating: "p", count: 100),
                                        headerFields: (0..<10).map { BinaryHTTPField(name: "x-\($0)", value: String(repeating: "v", count: 50)) },
                                        content: Data(count: 1000), trailerFields: [BinaryHTTPField(name: "t", value: "1")])
        for framing in [BinaryHTTPFraming.knownLength, .indeterminateLength] {
            let hex = try request.encoded(framing: framing).hex
            XCTAssertNoThrow(try BinaryHTTPRequest(decoding: Data(hex: hex)))
            expectRequest(hex, .limitExceeded, limits: BinaryHTTPDecodingLimits(maxControlDataLength: 100))
            expectRequest(hex, .limitExceeded, limits: BinaryHTTPDecodingLimits(maxFieldSectionLength: 500))
            expectRequest(hex, .limitExceeded, limits: BinaryHTTPDecodingLimits(maxFieldCount: 9))
            expectRequest(hex, .limitExceeded, limits: BinaryHTTPDecodingLimits(maxContentLength: 999))
        }
        let interim = try BinaryHTTPResponse(status: 200, informationalResponses: Array(repeating: .init(status: 100), count: 3)).encoded()
        expectResponse(interim.hex, .limitExceeded, limits: BinaryHTTPDecodingLimits(maxInformationalResponses: 2))
        // A length of 2^62 - 1 is refused by the limit before anything is allocated.
        expectRequest("00" + control + "00" + "ffffffffffffffff", .limitExceeded)
        expectRequest("02" + control + "00" + "ffffffffffffffff", .limitExceeded)
    }

    /// Every prefix of every RFC example either decodes or fails with an error; none traps.
    func testEveryPrefixOfTheExamples() {
        for example in [RFC9292Examples.knownLengthRequest, RFC9292Examples.indeterminateLengthRequest] {
            for cut in 0...example.count { _ = try? BinaryHTTPRequest(decoding: example.prefix(cut)) }
        }
        for example in [RFC9292Examples.indeterminateLengthResponse, RFC9292Examples.knownLengthChunkedResponse] {
            for cut in 0...example.count { _ = try? BinaryHTTPResponse(decoding: example.prefix(cut)) }
        }
    }
}
