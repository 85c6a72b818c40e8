import Foundation
import XCTest
import RelayFetch
import RelayFetchTestSupport
@testable import Crawler

/// RobotsCache keys its entries by the serialized origin (`URL.serializedOrigin`): https://h and
/// https://h:443 are one origin, so robots.txt is fetched once for both. Before, an explicit
/// :443 made an entry of its own and a second fetch. Counted in origin A's log by the session's
/// User-Agent, a marker of this test's.
final class RobotsCacheOriginTests: XCTestCase {
    func testAnExplicitDefaultPortSharesTheOriginsEntry() async throws {
        try TestServers.ensureRunning()
        let marker = TestServers.marker("robots-origin")
        var configuration = TestServers.configuration(hops: [TestServers.relayHop()])
        configuration.userAgent = marker
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        let cache = RobotsCache(productToken: "relayfetch")
        for url in ["https://origin.test/index.html", "https://origin.test:443/a.html", "https://ORIGIN.test:443/"] {
            _ = try await cache.rules(for: URL(string: url)!) { session }
        }
        let originCount = await cache.originCount
        XCTAssertEqual(originCount, 1, "one entry for the three spellings of the origin")
        XCTAssertFalse(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).isEmpty, "origin A's log shows the fetch")
        try await Task.sleep(nanoseconds: 300_000_000)  // a second fetch's line would be there by now
        let fetches = try TestServers.logLines(TestServers.originALog, containing: marker)
            .filter { $0[OriginLogField.uri.rawValue] == "/robots.txt" && $0[OriginLogField.userAgent.rawValue] == marker }
        XCTAssertEqual(fetches.count, 1, "robots.txt fetched once for https://origin.test and https://origin.test:443")
        // Another port is another origin.
        XCTAssertEqual(URL(string: "https://origin.test:8443/")?.serializedOrigin, "https://origin.test:8443")
    }
}
