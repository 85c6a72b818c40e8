import Foundation
import XCTest
import RelayFetch
import RelayFetchTestSupport

/// The session takes a URL host with capitals as its lower-case form, wherever the request
/// comes from (a library caller, a page, a redirect): the relay is asked for the lower-case name,
/// and a direct host's fixed address (`directHostAddresses`, written in lower case) applies.
final class HostCaseTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testTheRelayIsAskedForTheLowerCaseName() async throws {
        // nghttpx logs the CONNECT authority as it arrives (squid lowers it itself).
        let before = try TestServers.logLines(TestServers.http2RelayALog, containing: "\th16.origin.test:443\t").count
        let capitalsBefore = try TestServers.logLines(TestServers.http2RelayALog, containing: "H16.ORIGIN.test").count
        let session = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop(url: TestServers.http2RelayAURL,
                                                                                                       relayProtocol: .http2)]))
        defer { session.invalidate() }
        let marker = TestServers.marker("session-capitals")
        let (_, response) = try await session.data(from: URL(string: "https://H16.ORIGIN.test/index.html?\(marker)")!)
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(response.url.host, "h16.origin.test")
        XCTAssertFalse(try TestServers.waitForLogLines(TestServers.http2RelayALog, containing: "\th16.origin.test:443\t", skipping: before).isEmpty,
                       "nghttpx's log has no tunnel to h16.origin.test")
        XCTAssertEqual(try TestServers.logLines(TestServers.http2RelayALog, containing: "H16.ORIGIN.test").count, capitalsBefore, "the relay saw the capitals")
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first?.first, "127.0.0.11")
    }

    /// A redirect's Location enters the session too: a hostile origin sends the session to a
    /// capitalised host, which the relay is asked for in lower case.
    func testARedirectToACapitalisedHostIsFollowedInLowerCase() async throws {
        let origin = try HostileServer(script: "origin.py")
        defer { origin.stop() }
        let before = try TestServers.logLines(TestServers.http2RelayALog, containing: "\th16.origin.test:443\t").count
        let capitalsBefore = try TestServers.logLines(TestServers.http2RelayALog, containing: "H16.Origin.TEST").count
        let session = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop(url: TestServers.http2RelayAURL,
                                                                                                       relayProtocol: .http2)]))
        defer { session.invalidate() }
        let marker = TestServers.marker("redirect-capitals")
        let target = "https://H16.Origin.TEST/index.html?\(marker)".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let (_, response) = try await session.data(from: URL(string: "https://origin.test:\(origin.port)/redirect?to=\(target)")!)
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(response.url.host, "h16.origin.test")
        XCTAssertEqual(try origin.events().filter { $0.contains("/redirect") }.count, 1, "the hostile origin sent the redirect")
        XCTAssertFalse(try TestServers.waitForLogLines(TestServers.http2RelayALog, containing: "\th16.origin.test:443\t", skipping: before).isEmpty,
                       "nghttpx's log has no tunnel to h16.origin.test")
        XCTAssertEqual(try TestServers.logLines(TestServers.http2RelayALog, containing: "H16.Origin.TEST").count, capitalsBefore, "the relay saw the capitals")
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first?.first, "127.0.0.11")
    }

    func testAFixedDirectAddressAppliesToTheCapitalisedHost() async throws {
        var configuration = TestServers.configuration(hops: [TestServers.relayHop()], connectTimeout: 3)
        configuration.proxyConfigurations[0].excludedDomains = ["origin.test"]
        configuration.directHostAddresses = ["origin.test:443": "127.0.0.21"]
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        let marker = TestServers.marker("direct-capitals")
        let (_, response) = try await session.data(from: URL(string: "https://Origin.Test/index.html?\(marker)")!)
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first?.first, "127.0.0.1", "reached directly")
    }
}
