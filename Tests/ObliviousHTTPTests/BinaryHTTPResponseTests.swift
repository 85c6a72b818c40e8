import XCTest
import ObliviousHTTP

final class BinaryHTTPResponseTests: XCTestCase {
    func testInformationalResponseExampleEncodesByteForByte() throws {
        let encoded = try RFC9292Examples.response.encoded(framing: .indeterminateLength)
        XCTAssertEqual(encoded.hex, RFC9292Examples.indeterminateLengthResponse.hex)
    }

    func testInformationalResponseExampleDecodes() throws {
        let response = try BinaryHTTPResponse(decoding: RFC9292Examples.indeterminateLengthResponse)
        XCTAssertEqual(response, RFC9292Examples.response)
        XCTAssertEqual(response.informationalResponses.map(\.status), [102, 103])
        XCTAssertEqual(response.headerFields.first { $0.name == "etag" }?.stringValue, "\"34aa387-d-1568eb00\"")
    }

    func testKnownLengthChunkedExampleRoundTrips() throws {
        XCTAssertEqual(try RFC9292Examples.chunkedResponse.encoded().hex, RFC9292Examples.knownLengthChunkedResponse.hex)
        XCTAssertEqual(try BinaryHTTPResponse(decoding: RFC9292Examples.knownLengthChunkedResponse), RFC9292Examples.chunkedResponse)
    }

    /// RFC 9458 Appendix A's response: a bare 200 with every section truncated.
    func testMinimalResponseFromRFC9458() throws {
        let bytes = Data(hex: "0140c8")
        XCTAssertEqual(try BinaryHTTPResponse(decoding: bytes), BinaryHTTPResponse(status: 200))
        XCTAssertEqual(try BinaryHTTPResponse(status: 200).encoded(omittingEmptyTrailingSections: true), bytes)
    }

    func testRoundTripsInBothFramings() throws {
        let response = BinaryHTTPResponse(
            status: 404, headerFields: [BinaryHTTPField(name: "content-type", value: "text/plain")],
            content: Data(repeating: 0x41, count: 70_000),
            trailerFields: [BinaryHTTPField(name: "server-timing", value: "db;dur=53")],
            informationalResponses: [.init(status: 100), .init(status: 103, headerFields: [BinaryHTTPField(name: "link", value: "</a>")])])
        for framing in [BinaryHTTPFraming.knownLength, .indeterminateLength] {
            for truncating in [false, true] {
                let encoded = try response.encoded(framing: framing, omittingEmptyTrailingSections: truncating, paddingLength: 3)
                XCTAssertEqual(try BinaryHTTPResponse(decoding: encoded), response, "\(framing)")
            }
        }
    }

    func testEncoderRefusesStatusesOutOfRange() {
        let invalid = [BinaryHTTPResponse(status: 199), BinaryHTTPResponse(status: 600), BinaryHTTPResponse(status: 0),
                       BinaryHTTPResponse(status: 200, informationalResponses: [.init(status: 200)]),
                       BinaryHTTPResponse(status: 200, informationalResponses: [.init(status: 99)])]
        for response in invalid {
            XCTAssertThrowsError(try response.encoded()) { XCTAssertEqual(($0 as? ObliviousHTTPError)?.code, .invalidStatus) }
        }
    }
}
