import XCTest
@testable import RelayTransport

final class FlowCreditTests: XCTestCase {
    func testBytesAreOwedWhilePausedAndDueOnResume() {
        var credit = FlowCredit()
        XCTAssertEqual(credit.received(100), 100, "a reader that is not paused gives bytes back at once")
        XCTAssertEqual(credit.setPaused(true), 0)
        XCTAssertEqual(credit.received(300), 0)
        XCTAssertEqual(credit.received(200), 0)
        XCTAssertEqual(credit.setPaused(false), 500, "resuming gives back what was owed")
        XCTAssertEqual(credit.setPaused(false), 0)
        XCTAssertEqual(credit.setPaused(true), 0)
        XCTAssertEqual(credit.received(7), 0)
        XCTAssertEqual(credit.settle(), 7, "a stream that ends settles its debt")
        XCTAssertEqual(credit.settle(), 0)
    }
}
