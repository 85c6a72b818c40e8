import Foundation
import XCTest
import HeadlessPage
import RelayFetch
import RelayFetchTestSupport

/// Whole pages, loaded again and again through a one-hop HTTP/1.1 relay (libcurl's own proxy
/// route): nothing stalls and nothing is lost. libcurl 7.88 multiplexing HTTP/2 streams inside
/// its HTTPS proxy tunnel left responses unread in its TLS buffers until the idle timeout (30 s,
/// with resources failed) in 2 of 16 loads on loopback and in every round with 10 ms links.
final class HTTP1RelayPageLoadTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    private let rounds = 12

    func testRepeatedPageLoadsThroughAnHTTP1RelayLoseNothing() async throws {
        let expected = try String(contentsOf: TestServers.repository.appendingPathComponent("Samples/site/full/EXPECTED.txt"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        // A host name no other test uses, so other runs' requests in the shared log do not count.
        let host = "h20.origin.test"
        let before = try TestServers.allLogLines(TestServers.originALog).count
        var configuration = TestServers.configuration(hops: [TestServers.relayHop(relayProtocol: .http1)])
        // A stall shows as a failed resource in seconds, not after the default 30.
        configuration.idleTimeout = 4
        let sessionConfiguration = configuration
        for round in 1...rounds {
            // Two sessions at once: each its own connections, loaded side by side.
            try await withThrowingTaskGroup(of: Page.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        let session = try Session(configuration: sessionConfiguration)
                        defer { session.invalidate() }
                        return try await PageLoader(session: session, options: .complete).load(URL(string: "https://\(host)/full/index.html")!)
                    }
                }
                for try await page in group {
                    XCTAssertEqual(page.statusCode, 200, "round \(round)")
                    XCTAssertTrue(page.failedResources.isEmpty,
                                  "round \(round): \(page.failedResources.map { "\($0.url) \($0.error ?? "")" })")
                }
            }
        }
        // The origin served each expected path once per load: nothing was asked twice or lost.
        let lines = Array(try TestServers.allLogLines(TestServers.originALog).dropFirst(before))
            .filter { $0[OriginLogField.host.rawValue] == host }
        var counts: [String: Int] = [:]
        for line in lines { counts[line[OriginLogField.uri.rawValue], default: 0] += 1 }
        XCTAssertEqual(counts, Dictionary(uniqueKeysWithValues: expected.map { ($0, 2 * rounds) }), "the origin's log")
        XCTAssertTrue(lines.allSatisfy { $0[OriginLogField.remoteAddress.rawValue] == "127.0.0.11" }, "every request through the relay")
    }
}
