import Foundation
import XCTest
import RelayFetch
import RelayFetchTestSupport

/// The session takes a URL host with capitals as its lower-case form, wherever the request
/// comes from (a library caller, a page, a redirect): the relay is asked for the lower-case name,
/// and a direct host's fixed address (`directHostAddresses`, written in lower case) applies.
final class HostCaseTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    /// Runs `fetch` on a session through relay A's nghttpx, which logs the CONNECT authority as
    /// it arrives (squid lowers it itself): the relay is asked for h16.origin.test (a name no
    /// other test uses) and never for `capitals`; the final response is for the lower-case host.
    private func assertTheRelayIsAskedInLowerCase(_ capitals: String, fetch: (Session) async throws -> HTTPResponse,
                                                  file: StaticString = #filePath, line: UInt = #line) async throws {
        let tunnel = "\th16.origin.test:443\t"
        let before = try TestServers.logLines(TestServers.http2RelayALog, containing: tunnel).count
        let capitalsBefore = try TestServers.logLines(TestServers.http2RelayALog, containing: capitals).count
        let session = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop(url: TestServers.http2RelayAURL,
                                                                                                       relayProtocol: .http2)]))
        defer { session.invalidate() }
        let response = try await fetch(session)
        XCTAssertEqual(response.statusCode, 200, file: file, line: line)
        XCTAssertEqual(response.url.host, "h16.origin.test", file: file, line: line)
        XCTAssertFalse(try TestServers.waitForLogLines(TestServers.http2RelayALog, containing: tunnel, skipping: before).isEmpty,
                       "nghttpx's log has no tunnel to h16.origin.test", file: file, line: line)
        XCTAssertEqual(try TestServers.logLines(TestServers.http2RelayALog, containing: capitals).count, capitalsBefore, "the relay saw the capitals",
                       file: file, line: line)
    }

    func testTheRelayIsAskedForTheLowerCaseName() async throws {
        let marker = TestServers.marker("session-capitals")
        try await assertTheRelayIsAskedInLowerCase("H16.ORIGIN.test") { session in
            try await session.data(from: URL(string: "https://H16.ORIGIN.test/index.html?\(marker)")!).1
        }
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first?.first, "127.0.0.11")
    }

    /// A redirect's Location enters the session too: a hostile origin sends the session to a
    /// capitalised host.
    func testARedirectToACapitalisedHostIsFollowedInLowerCase() async throws {
        let origin = try HostileServer(script: "origin.py")
        defer { origin.stop() }
        let marker = TestServers.marker("redirect-capitals")
        let target = "https://H16.Origin.TEST/index.html?\(marker)".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        try await assertTheRelayIsAskedInLowerCase("H16.Origin.TEST") { session in
            try await session.data(from: URL(string: "https://origin.test:\(origin.port)/redirect?to=\(target)")!).1
        }
        XCTAssertEqual(try origin.events().filter { $0.contains("/redirect") }.count, 1, "the hostile origin sent the redirect")
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
