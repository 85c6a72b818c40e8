import XCTest
import ObliviousHTTP

final class BinaryHTTPRequestTests: XCTestCase {
    func testKnownLengthExampleEncodesByteForByte() throws {
        XCTAssertEqual(try RFC9292Examples.request.encoded(framing: .knownLength).hex, RFC9292Examples.knownLengthRequest.hex)
    }

    func testIndeterminateLengthExampleEncodesByteForByte() throws {
        let encoded = try RFC9292Examples.request.encoded(framing: .indeterminateLength, paddingLength: 10)
        XCTAssertEqual(encoded.hex, RFC9292Examples.indeterminateLengthRequest.hex)
    }

    func testExamplesDecode() throws {
        XCTAssertEqual(try BinaryHTTPRequest(decoding: RFC9292Examples.knownLengthRequest), RFC9292Examples.request)
        XCTAssertEqual(try BinaryHTTPRequest(decoding: RFC9292Examples.indeterminateLengthRequest), RFC9292Examples.request)
    }

    /// Section 5.1: the last two bytes of the known-length form, and up to twelve of the
    /// indeterminate one, can go without changing the message.
    func testTruncatedExamplesDecodeToTheSameRequest() throws {
        for cut in 0...2 {
            XCTAssertEqual(try BinaryHTTPRequest(decoding: RFC9292Examples.knownLengthRequest.dropLast(cut)), RFC9292Examples.request)
        }
        for cut in 0...12 {
            XCTAssertEqual(try BinaryHTTPRequest(decoding: RFC9292Examples.indeterminateLengthRequest.dropLast(cut)),
                           RFC9292Examples.request)
        }
        XCTAssertEqual(try RFC9292Examples.request.encoded(omittingEmptyTrailingSections: true),
                       RFC9292Examples.knownLengthRequest.dropLast(2))
    }

    /// RFC 9458 Appendix A's request: control data only, every section truncated.
    func testMinimalRequestFromRFC9458() throws {
        let bytes = Data(hex: "00034745540568747470730b6578616d706c652e636f6d012f")
        let request = BinaryHTTPRequest(authority: "example.com")
        XCTAssertEqual(try BinaryHTTPRequest(decoding: bytes), request)
        XCTAssertEqual(try request.encoded(omittingEmptyTrailingSections: true), bytes)
        XCTAssertEqual(try request.encoded().hex, bytes.hex + "000000")
    }

    func testRoundTripsContentTrailersAndPseudoFieldsInBothFramings() throws {
        let request = BinaryHTTPRequest(
            method: "POST", scheme: "https", authority: "[2001:db8::1]:8443", path: "/upload?x=1&y=%20",
            headerFields: [BinaryHTTPField(name: ":protocol", value: "websocket"),
                           BinaryHTTPField(name: "content-type", value: "application/octet-stream"),
                           BinaryHTTPField(name: "x-obs-text", value: Data([0x61, 0xff, 0x80, 0x62])),
                           BinaryHTTPField(name: "empty", value: "")],
            content: Data((0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7) }),
            trailerFields: [BinaryHTTPField(name: "digest", value: "sha-256=abc")])
        for framing in [BinaryHTTPFraming.knownLength, .indeterminateLength] {
            for padding in [0, 1, 17] {
                let encoded = try request.encoded(framing: framing, paddingLength: padding)
                XCTAssertEqual(try BinaryHTTPRequest(decoding: encoded), request, "\(framing) padding \(padding)")
            }
        }
    }

    func testConnectStyleRequestWithEmptySchemeAndPath() throws {
        let request = BinaryHTTPRequest(method: "CONNECT", scheme: "", authority: "example.com:443", path: "")
        XCTAssertEqual(try BinaryHTTPRequest(decoding: request.encoded()), request)
    }

    func testEncoderRefusesWhatTheDecoderWouldReject() {
        let invalid: [(BinaryHTTPRequest, ObliviousHTTPError.Code)] = [
            (BinaryHTTPRequest(method: "G ET", authority: "a"), .invalidControlData),
            (BinaryHTTPRequest(method: "", authority: "a"), .invalidControlData),
            (BinaryHTTPRequest(scheme: "1http", authority: "a"), .invalidControlData),
            (BinaryHTTPRequest(authority: "user@host"), .invalidControlData),
            (BinaryHTTPRequest(authority: "a", path: "/a b"), .invalidControlData),
            (BinaryHTTPRequest(authority: "a", headerFields: [BinaryHTTPField(name: "Accept", value: "x")]), .invalidFieldName),
            (BinaryHTTPRequest(authority: "a", headerFields: [BinaryHTTPField(name: ":path", value: "/")]), .invalidFieldName),
            (BinaryHTTPRequest(authority: "a", headerFields: [BinaryHTTPField(name: "a", value: "x\r\ny: z")]), .invalidFieldValue),
            (BinaryHTTPRequest(authority: "a", trailerFields: [BinaryHTTPField(name: ":protocol", value: "x")]), .invalidFieldName),
        ]
        for (request, code) in invalid {
            XCTAssertThrowsError(try request.encoded(), "\(request)") { XCTAssertEqual(($0 as? ObliviousHTTPError)?.code, code) }
        }
    }
}
