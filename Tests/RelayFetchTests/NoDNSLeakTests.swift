import Foundation
import XCTest
import RelayFetch
import RelayFetchTestSupport

/// Invariant 2: names behind a relay are resolved by the relay, never locally.
final class NoDNSLeakTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testNameOnlyTheRelayCanResolveLoadsThroughIt() async throws {
        let marker = TestServers.marker("dns")
        // origin2.test exists only in squid's hosts file: locally it does not resolve at all.
        let direct = try Session(configuration: TestServers.configuration(hops: []))
        defer { direct.invalidate() }
        do {
            _ = try await direct.data(from: URL(string: "https://origin2.test/index.html?\(marker)-direct")!)
            XCTFail("origin2.test must not resolve on the client")
        } catch let error as FetchError {
            XCTAssertTrue(error.description.lowercased().contains("resolve"), error.description)
        }

        let relayed = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop()]))
        defer { relayed.invalidate() }
        let (_, response) = try await relayed.data(from: URL(string: "https://origin2.test/index.html?\(marker)")!)
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(TestServers.logLines(TestServers.originBLog, containing: marker).first?[OriginLogField.remoteAddress.rawValue], "127.0.0.11")
    }
}
