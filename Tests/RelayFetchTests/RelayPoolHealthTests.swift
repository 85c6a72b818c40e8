import XCTest
@testable import RelayFetch

/// Which chain carries each host, over plain time values.
final class RelayPoolHealthTests: XCTestCase {
    func testHostsStickSpreadAndMoveOffAFailedChain() {
        var pool = RelayPoolHealth(chainCount: 2, baseBackoff: 1)
        XCTAssertEqual(pool.chain(for: "a", now: 0), 0)
        XCTAssertEqual(pool.chain(for: "b", now: 0), 1, "the chain with fewest hosts")
        XCTAssertEqual(pool.chain(for: "a", now: 0), 0, "sticky")
        pool.failed(0, now: 10)
        XCTAssertEqual(pool.upCount(at: 10.5).up, 1)
        XCTAssertEqual(pool.chain(for: "a", now: 10.5), 1, "moved off the failed chain")
        pool.failed(0, now: 10.6)  // a request that was in flight on it
        XCTAssertEqual(pool.nextRecovery(after: 10.6), 11, "failures while down do not lengthen the rest")
        XCTAssertEqual(pool.chain(for: "c", now: 11), 0, "back in after its backoff, for new hosts")
        XCTAssertEqual(pool.chain(for: "a", now: 11), 1, "a moved host stays where it went")
    }

    func testBackoffDoublesUntilSuccessAndAllDownMeansNoChain() {
        var pool = RelayPoolHealth(chainCount: 1, baseBackoff: 1, maximumBackoff: 3)
        pool.failed(0, now: 0)
        XCTAssertNil(pool.chain(for: "a", now: 0.5), "every chain down: the host waits")
        XCTAssertEqual(pool.nextRecovery(after: 0.5), 1)
        pool.failed(0, now: 1)
        XCTAssertEqual(pool.nextRecovery(after: 1), 3)
        pool.failed(0, now: 3)
        XCTAssertEqual(pool.nextRecovery(after: 3), 6, "capped at 3 s")
        pool.succeeded(0, now: 6)
        pool.failed(0, now: 6)
        XCTAssertEqual(pool.nextRecovery(after: 6), 7, "a success resets the backoff")
        XCTAssertEqual(pool.chain(for: "a", now: 7), 0)
    }

    func testOnlyCandidateChainsCarryAHost() {
        var pool = RelayPoolHealth(chainCount: 3, baseBackoff: 1)
        XCTAssertEqual(pool.chain(for: "a", now: 0, candidates: [2]), 2)
        XCTAssertEqual(pool.chain(for: "b", now: 0, candidates: [1, 2]), 1, "the candidate with fewest hosts")
        pool.failed(2, now: 1)
        XCTAssertNil(pool.chain(for: "a", now: 1.5, candidates: [2]), "its only candidate is down: it waits")
        XCTAssertNil(pool.chain(for: "c", now: 1.5, candidates: []), "no candidate at all")
        XCTAssertEqual(pool.states(at: 1.5).map(\.up), [true, true, false])
        XCTAssertEqual(pool.states(at: 1.5).map(\.failures), [0, 0, 1])
    }

    /// A failed chain whose rest is over carries requests again but is reported up only once one
    /// of them worked (a crawl that ends after the rest must not call a dead relay up).
    func testAChainIsReportedUpOnlyOnceItWorksAgain() {
        var pool = RelayPoolHealth(chainCount: 2, baseBackoff: 1)
        pool.failed(0, now: 0)
        XCTAssertEqual(pool.states(at: 5).map(\.up), [false, true])
        XCTAssertEqual(pool.upCount(at: 5).up, 1)
        XCTAssertTrue(pool.isUp(0, at: 5), "routing tries it again")
        pool.succeeded(0, now: 0.5)  // a request from before the failure, ending during the rest
        XCTAssertEqual(pool.states(at: 5).map(\.up), [false, true], "a late success from before the failure does not count")
        pool.succeeded(0, now: 5)
        XCTAssertEqual(pool.states(at: 5).map(\.up), [true, true])
        XCTAssertEqual(pool.upCount(at: 5).up, 2)
    }
}
