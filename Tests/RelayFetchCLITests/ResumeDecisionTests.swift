import XCTest
@testable import RelayFetchCLI

/// What `get -C -` does with each answer to its Range request.
final class ResumeDecisionTests: XCTestCase {
    func testDecisions() {
        XCTAssertEqual(ResumeDecision.decide(status: 206, contentRange: "bytes 100-199/200", offset: 100), .append)
        XCTAssertEqual(ResumeDecision.decide(status: 200, contentRange: nil, offset: 100), .replace)
        XCTAssertEqual(ResumeDecision.decide(status: 416, contentRange: "bytes */100", offset: 100), .alreadyComplete)
        guard case .fail = ResumeDecision.decide(status: 206, contentRange: "bytes 0-199/200", offset: 100) else { return XCTFail("a range from 0 was appended") }
        guard case .fail = ResumeDecision.decide(status: 206, contentRange: nil, offset: 100) else { return XCTFail("206 without Content-Range") }
        guard case .fail = ResumeDecision.decide(status: 416, contentRange: "bytes */50", offset: 100) else { return XCTFail("a file larger than the resource") }
        XCTAssertEqual(ResumeDecision.decide(status: 204, contentRange: nil, offset: 100), .replace)
    }

    /// No answer outside 2xx may touch the partial file: each is refused, naming its status.
    func testErrorStatusesAreRefused() {
        for status in [301, 304, 400, 403, 404, 410, 429, 500, 502, 503] {
            XCTAssertEqual(ResumeDecision.decide(status: status, contentRange: nil, offset: 100), .refuse(status: status), "\(status)")
            XCTAssertEqual(ResumeDecision.decide(status: status, contentRange: "bytes 100-199/200", offset: 100), .refuse(status: status), "\(status)")
        }
    }

    func testContentRangeParsing() {
        XCTAssertEqual(ContentRange("bytes 0-9/10")?.first, 0)
        XCTAssertEqual(ContentRange("bytes 0-9/10")?.completeLength, 10)
        XCTAssertEqual(ContentRange(" bytes 7-9/10 ")?.first, 7)
        XCTAssertEqual(ContentRange("bytes 5-9/*")?.first, 5)
        XCTAssertNil(ContentRange("bytes 5-9/*")?.completeLength)
        XCTAssertEqual(ContentRange("bytes */10")?.completeLength, 10)
        XCTAssertNil(ContentRange("bytes */10")?.first)
        for bad in ["bytes 9-5/10", "items 0-1/2", "bytes 0-1", "bytes a-b/10", "bytes 0-1/x"] { XCTAssertNil(ContentRange(bad), bad) }
    }
}
