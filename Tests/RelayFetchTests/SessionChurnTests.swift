import Foundation
import XCTest
import RelayFetch
import RelayFetchTestSupport

/// Many short sessions, alternating tunnels that open and tunnels the relay refuses: every
/// fetch ends promptly with the right outcome, and ended sessions leave no descriptors behind.
final class SessionChurnTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testShortSessionsNeverHangAndLeakNoDescriptors() async throws {
        let openBefore = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
        for iteration in 0..<200 {
            let accepted = iteration % 2 == 0
            let hop = TestServers.relayHop(token: accepted ? TestServers.relayToken : nil)
            let session = try Session(configuration: TestServers.configuration(hops: [hop], connectTimeout: 2))
            let started = Date()
            do {
                _ = try await session.data(from: URL(string: "https://origin.test/index.html")!)
                XCTAssertTrue(accepted, "iteration \(iteration): the relay must refuse a fetch without its token")
            } catch let error as FetchError {
                XCTAssertFalse(accepted, "iteration \(iteration): \(error)")
                XCTAssertEqual(error.relayError?.cause, .tunnelRefused(status: 407, reason: "Proxy Authentication Required"),
                               "iteration \(iteration) after \(Date().timeIntervalSince(started)) s: \(error)")
            }
            session.invalidate()
        }
        try await Task.sleep(nanoseconds: 300_000_000)  // threads of ended sessions finish closing
        let openAfter = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
        XCTAssertLessThan(openAfter - openBefore, 20, "descriptors leaked: \(openBefore) before, \(openAfter) after")
    }
}
