import Foundation
import XCTest
import RelayFetch
import RelayFetchTestSupport

/// The session's memory-only store against real origins: cookies come back on later requests
/// (by the RFC's rules), responses are reused or revalidated, and a second session sees none
/// of the first one's state (invariant 4).
final class DataStoreEndToEndTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testCookiesAreKeptPerSessionAndFollowTheRules() async throws {
        let sessionA = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop()]))
        let sessionB = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop()]))
        defer { sessionA.invalidate(); sessionB.invalidate() }
        _ = try await sessionA.data(from: URL(string: "https://origin.test/cookies/set")!)

        let (same, _) = try await sessionA.data(from: URL(string: "https://origin.test/echo-headers")!)
        XCTAssertTrue(String(decoding: same, as: UTF8.self).contains("cookie: session=s3cr3t; theme=dark\n"), String(decoding: same, as: UTF8.self))
        let (sub, _) = try await sessionA.data(from: URL(string: "https://www.origin.test/echo-headers")!)
        XCTAssertTrue(String(decoding: sub, as: UTF8.self).contains("cookie: theme=dark\n"), "the host-only cookie stays on origin.test")
        let (other, _) = try await sessionA.data(from: URL(string: "https://origin2.test/echo-headers")!)
        XCTAssertTrue(String(decoding: other, as: UTF8.self).contains("cookie: \n"), "Domain=test is a public suffix: refused")

        let (isolated, _) = try await sessionB.data(from: URL(string: "https://origin.test/echo-headers")!)
        XCTAssertTrue(String(decoding: isolated, as: UTF8.self).contains("cookie: \n"), "another session has no cookies")
    }

    func testFreshResponsesAreReusedAndStaleOnesRevalidated() async throws {
        let marker = TestServers.marker("cache")
        let session = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop()]))
        defer { session.invalidate() }
        let image = URL(string: "https://origin.test/full/img/a.svg?\(marker)")!
        let (first, firstResponse) = try await session.data(from: image)
        let (second, secondResponse) = try await session.data(from: image)
        XCTAssertFalse(firstResponse.fromCache)
        XCTAssertTrue(secondResponse.fromCache)
        XCTAssertEqual(first, second)
        // nginx logs a request after its last byte is sent: the client can be faster than the log.
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: "a.svg?\(marker)", skipping: 0).count, 1,
                       "max-age: no second request")

        let page = URL(string: "https://origin.test/full/index.html?\(marker)")!
        let (body, _) = try await session.data(from: page)
        let (again, revalidated) = try await session.data(from: page)
        XCTAssertEqual(body, again)
        XCTAssertTrue(revalidated.fromCache)
        XCTAssertEqual(revalidated.statusCode, 200)
        let statuses = try TestServers.waitForLogLines(TestServers.originALog, containing: "index.html?\(marker)", skipping: 0, count: 2)
            .map { $0[OriginLogField.status.rawValue] }
        XCTAssertEqual(statuses, ["200", "304"], "no-cache with an ETag: revalidated, not downloaded again")

        let other = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop()]))
        defer { other.invalidate() }
        let (_, fresh) = try await other.data(from: image)
        XCTAssertFalse(fresh.fromCache, "another session has its own cache")
    }
}
