import Foundation
import XCTest
@testable import Crawler

/// The politeness state machine and the retry schedule, over plain time values.
final class PolitenessTests: XCTestCase {
    func testPerHostConcurrencyAndDelay() {
        var state = Politeness(policy: .init(perHostConcurrency: 2, delay: 1))
        XCTAssertEqual(state.busyHosts(at: 0), [])
        state.start("a", at: 0)
        XCTAssertEqual(state.busyHosts(at: 0), ["a"], "the delay holds the next start")
        XCTAssertEqual(state.busyHosts(at: 1), [])
        state.start("a", at: 1)
        XCTAssertEqual(state.busyHosts(at: 5), ["a"], "two in flight")
        state.finish("a")
        XCTAssertEqual(state.busyHosts(at: 5), [])
        XCTAssertEqual(state.nextHostRelease(after: 1.5), 2)
    }

    func testCrawlDelayPauseAndGlobalRate() {
        var state = Politeness(policy: .init(perHostConcurrency: 4, delay: 0, requestsPerSecond: 10))
        state.setCrawlDelay(2, for: "b", now: 0)
        XCTAssertEqual(state.busyHosts(at: 1), ["b"])
        state.start("b", at: 2)
        XCTAssertEqual(state.globalWait(at: 2), 0.1, accuracy: 1e-9)
        XCTAssertEqual(state.busyHosts(at: 3.9), ["b"], "Crawl-delay 2 between starts")
        state.sending("b", at: 3)
        XCTAssertEqual(state.busyHosts(at: 4.9), ["b"], "the delay counts from the send")
        state.pause("c", until: 10)
        XCTAssertTrue(state.busyHosts(at: 9).contains("c"))
        XCTAssertFalse(state.busyHosts(at: 10).contains("c"))
    }

    func testBackoffGrowsWithJitterAndRetryAfterWins() {
        let policy = RetryPolicy()
        XCTAssertEqual(policy.delay(retry: 1, retryAfter: nil, jitter: 1), 0.5)
        XCTAssertEqual(policy.delay(retry: 1, retryAfter: nil, jitter: 0), 0.25)
        XCTAssertEqual(policy.delay(retry: 3, retryAfter: nil, jitter: 1), 2)
        XCTAssertEqual(policy.delay(retry: 30, retryAfter: nil, jitter: 1), 60, "capped")
        XCTAssertEqual(policy.delay(retry: 1, retryAfter: 7, jitter: 0.3), 7)
        XCTAssertEqual(policy.delay(retry: 1, retryAfter: 1e6, jitter: 0.3), 60)
        XCTAssertTrue(RetryPolicy.isRetryable(status: 503))
        XCTAssertFalse(RetryPolicy.isRetryable(status: 404))
    }

    func testRetryAfterParsing() {
        XCTAssertEqual(RetryPolicy.retryAfterSeconds("120"), 120)
        let now = Date(timeIntervalSince1970: 784_111_777 - 30)  // RFC 9110's example date, minus 30 s
        XCTAssertEqual(RetryPolicy.retryAfterSeconds("Sun, 06 Nov 1994 08:49:37 GMT", now: now) ?? -1, 30, accuracy: 0.001)
        XCTAssertEqual(RetryPolicy.retryAfterSeconds("Sunday, 06-Nov-94 08:49:37 GMT", now: now) ?? -1, 30, accuracy: 0.001, "RFC 850 form")
        XCTAssertNil(RetryPolicy.retryAfterSeconds("Thu, 1 Jan 1970 00:00:00\u{5B8}MT"), "non-ASCII from a server")
        XCTAssertNil(RetryPolicy.retryAfterSeconds("soon"))
        XCTAssertNil(RetryPolicy.retryAfterSeconds("-5"))
    }
}
