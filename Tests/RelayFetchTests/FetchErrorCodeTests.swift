import XCTest
import RelayFetch

/// `FetchError.Code` is an open set: values compared with `==` and matched with a `default:`, so
/// a new condition adds a value without breaking a client's switch; the condition's values are
/// properties of the error, and the texts are the ones the enum gave.
final class FetchErrorCodeTests: XCTestCase {
    private func classify(_ code: FetchError.Code) -> String {
        switch code {
        case .timedOut, .idleTimeout: return "slow"
        case .relay: return "relay"
        default: return "other"
        }
    }

    func testCodesCompareAndCarryTheirValuesAsProperties() {
        let tooLarge = FetchError(.responseTooLarge(limit: 1 << 20))
        XCTAssertEqual(tooLarge.code, .responseTooLarge)
        XCTAssertEqual(tooLarge.limit, 1 << 20)
        XCTAssertEqual("\(tooLarge)", "response larger than the limit of 1048576 bytes")
        let idle = FetchError(.idleTimeout(seconds: 2, peer: "origin.test:443", route: ["relay.test:443"], stalled: nil))
        XCTAssertEqual(idle.code, .idleTimeout)
        XCTAssertEqual(idle.seconds, 2)
        XCTAssertEqual(idle.peer, "origin.test:443")
        XCTAssertEqual(classify(idle.code), "slow")
        XCTAssertEqual(classify(FetchError(.transfer("reset")).code), "other")
        XCTAssertEqual(FetchError(.notRelayed(host: "a.test")).host, "a.test")
        XCTAssertEqual(FetchError.Code.notRelayed.description, "notRelayed")
        XCTAssertNil(tooLarge.relayError)
        XCTAssertEqual(Set([FetchError.Code.timedOut, .timedOut, .transfer]).count, 2)
    }
}
