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
        XCTAssertEqual(state.nextHostRelease(after: 1.5), 2)
        XCTAssertEqual(state.busyHosts(at: 5), [])
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

/// Politeness past many hosts: at most `maximumHosts` are kept (never one with a request in
/// flight or a pause running), and the busy set it keeps as events come says what a look at
/// every host would.
final class PolitenessBoundTests: XCTestCase {
    func testHostsBeyondTheBoundAreForgottenOnlyWhenIdle() {
        var state = Politeness(policy: .init(perHostConcurrency: 1, delay: 0), maximumHosts: 100)
        state.pause("paused", until: 1_000)
        state.start("in flight", at: 0)
        for index in 0..<10_000 {
            let now = Double(index) / 100
            state.start("host-\(index)", at: now)
            state.finish("host-\(index)")
        }
        XCTAssertLessThanOrEqual(state.hostCount, 100)
        let busy = state.busyHosts(at: 500)
        XCTAssertTrue(busy.contains("paused"), "a pause running is never forgotten")
        XCTAssertTrue(busy.contains("in flight"), "a request in flight is never forgotten")
        XCTAssertFalse(state.busyHosts(at: 1_000).contains("paused"))
    }

    /// A random run of events, checked after each against a model that looks at every host.
    func testBusyHostsMatchALookAtEveryHost() {
        struct Host { var active = 0, nextStart = 0.0, crawlDelay = 0.0, pausedUntil = 0.0 }
        var generator = SystemRandomNumberGenerator()
        let policy = Politeness.Policy(perHostConcurrency: 2, delay: 0.5)
        var state = Politeness(policy: policy)
        var model: [String: Host] = [:]
        var now = 0.0
        for _ in 0..<5_000 {
            now += Double.random(in: 0..<0.2, using: &generator)
            let host = "h\(Int.random(in: 0..<12, using: &generator))"
            var entry = model[host] ?? Host()
            switch Int.random(in: 0..<5, using: &generator) {
            case 0 where entry.active < policy.perHostConcurrency:
                state.start(host, at: now)
                entry.active += 1
                entry.nextStart = now + max(policy.delay, entry.crawlDelay)
            case 1 where entry.active > 0:
                state.finish(host)
                entry.active -= 1
            case 2:
                let delay = Double.random(in: 0..<2, using: &generator)
                state.setCrawlDelay(delay, for: host, now: now)
                entry.crawlDelay = delay
                entry.nextStart = max(entry.nextStart, now + delay)
            case 3:
                let until = now + Double.random(in: 0..<3, using: &generator)
                state.pause(host, until: until)
                entry.pausedUntil = max(entry.pausedUntil, until)
            default:
                guard model[host] != nil else { continue }
                state.sending(host, at: now)
                entry.nextStart = max(entry.nextStart, now + max(policy.delay, entry.crawlDelay))
            }
            model[host] = entry
            let expected = Set(model.filter { !($0.value.active < policy.perHostConcurrency && $0.value.nextStart <= now && $0.value.pausedUntil <= now) }.keys)
            XCTAssertEqual(state.busyHosts(at: now), expected)
            let release = model.values.filter { $0.active < policy.perHostConcurrency }.map { max($0.nextStart, $0.pausedUntil) }.filter { $0 > now }.min()
            if let release { XCTAssertLessThanOrEqual(state.nextHostRelease(after: now) ?? .infinity, release) }
        }
    }
}
