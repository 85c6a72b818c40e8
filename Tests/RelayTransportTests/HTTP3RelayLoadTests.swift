import Foundation
import Locking
import XCTest
@testable import RelayTransport
import RelayFetchTestSupport

/// Many tunnels at once to one HTTP/3 relay, more than its limit of concurrent streams (aioquic:
/// 128), each carrying TLS + HTTP/1.1 to the origin: the first 128 share one connection and the
/// rest take a second rather than queue behind them. Driven on the loop without blocking
/// threads, as a page load would.
final class HTTP3RelayLoadTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testOneHundredFiftyConcurrentTunnelsShareTwoConnections() throws {
        let count = 150
        let session = HTTP3TestChain()
        defer { session.end() }
        let linesBefore = try TestServers.allLogLines(TestServers.http3RelayALog).count
        let finished = DispatchSemaphore(value: 0)
        let results = HTTP3LoadResults()
        session.loop.execute {
            let context: TLSContext
            do { context = try TLSContext(trust: TLSTrust(caFile: TestServers.caFile)) } catch { return XCTFail("\(error)") }
            for _ in 0..<count {
                session.build(through: [HTTP3RelayTests.relay()]) { outcome in
                    guard case .success(let (tunnel, _)) = outcome else {
                        results.add("\(outcome)")
                        finished.signal()
                        return
                    }
                    session.get("/index.html", over: tunnel, context: context) { response in
                        results.add(response.contains("relayfetch sample site") ? nil : String(response.prefix(120)))
                        finished.signal()
                    }
                }
            }
        }
        for _ in 0..<count { _ = finished.wait(timeout: .now() + 30) }
        XCTAssertEqual(results.succeeded, count, results.failures.prefix(3).joined(separator: "\n"))
        // The kernel: two UDP sockets to the relay (128 streams each at most); the relay: every
        // tunnel came from them.
        let ours = try TestServers.ownSockets(.udp, to: "127.0.0.11:4433")
        XCTAssertEqual(ours.count, 2, "\(ours)")
        let tunnels = try TestServers.http3RelayLines(TestServers.http3RelayALog, skipping: linesBefore, from: ours)
        XCTAssertEqual(tunnels.with(HTTP3RelayLogField.status, "200").with(HTTP3RelayLogField.authority, "origin.test:443").count, count)
    }
}

/// Outcomes collected from the loop thread, read from the test's.
final class HTTP3LoadResults: Sendable {
    private let outcomes = Locked((ok: 0, failed: [String]()))

    func add(_ failure: String?) {
        outcomes.withLock { if let failure { $0.failed.append(failure) } else { $0.ok += 1 } }
    }

    var succeeded: Int { outcomes.withLock { $0.ok } }
    var failures: [String] { outcomes.withLock { $0.failed } }
}
