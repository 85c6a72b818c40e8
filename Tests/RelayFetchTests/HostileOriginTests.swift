import Foundation
import XCTest
import RelayFetch
import RelayFetchTestSupport

/// A hostile origin (Samples/servers/hostile/origin.py) behind the real squid relay: bodies cut
/// short, connections that stay open and silent, huge headers. relayfetch must fail with a clear
/// error naming who misbehaved, never crash, never hang past its timeouts.
final class HostileOriginTests: XCTestCase {
    private var origin: HostileServer!

    override func setUpWithError() throws {
        origin = try HostileServer(script: "origin.py")
    }

    override func tearDown() { origin.stop() }

    private func url(_ path: String) -> URL { URL(string: "https://origin.test:\(origin.port)\(path)")! }

    /// Fetches `path` through squid in a session of its own and returns the error it must fail
    /// with ("" after recording a failure when it does not).
    private func failure(of path: String, idleTimeout: Double = 30, requestTimeout: Double = 120,
                         relayProtocol: RelayProtocol = .automatic) async throws -> String {
        var configuration = TestServers.configuration(hops: [TestServers.relayHop(relayProtocol: relayProtocol)])
        configuration.idleTimeout = idleTimeout
        configuration.requestTimeout = requestTimeout
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        let error = await session.fetchError(url(path))
        XCTAssertNotNil(error, "\(path): accepted a body")
        return error?.description ?? ""
    }

    private func requests(_ path: String) throws -> Int { try origin.events().filter { $0.contains(path) }.count }

    /// The relay ends the tunnel cleanly (TLS close_notify) after the origin dropped its
    /// connection mid-body: this used to recurse without end and crash.
    func testRelayClosingTheTunnelMidBodyFailsAsTruncated() async throws {
        for _ in 0..<5 {
            let error = try await failure(of: "/truncate/200000", idleTimeout: 5)
            XCTAssertTrue(error.contains("hop 1 (127.0.0.11:3129"), error)
            XCTAssertTrue(error.contains("closed the tunnel before the response was complete"), error)
        }
        XCTAssertEqual(try requests("/truncate/"), 5)
    }

    /// Without a length, the body ends at the connection's end; an end without the origin's TLS
    /// close_notify is a truncation, not a complete body.
    func testBodyWithoutLengthCutWithoutCloseNotifyIsATruncation() async throws {
        for relayProtocol in [RelayProtocol.automatic, .http1] {
            let error = try await failure(of: "/truncate-unlength/5000", idleTimeout: 5, relayProtocol: relayProtocol)
            XCTAssertTrue(error.contains("the origin's TLS stream was cut (no close_notify)"), "\(relayProtocol): \(error)")
        }
        XCTAssertEqual(try requests("/truncate-unlength/"), 2)
    }

    /// The same body ended properly (close_notify, then the close) is whole, on both routes.
    func testBodyWithoutLengthEndedWithCloseNotifyIsWhole() async throws {
        for relayProtocol in [RelayProtocol.automatic, .http1] {
            var configuration = TestServers.configuration(hops: [TestServers.relayHop(relayProtocol: relayProtocol)])
            configuration.idleTimeout = 5
            let session = try Session(configuration: configuration)
            defer { session.invalidate() }
            let (body, response) = try await session.data(from: url("/unlength/3000000"))
            XCTAssertEqual(response.statusCode, 200, "\(relayProtocol)")
            XCTAssertEqual(body, Data(repeating: UInt8(ascii: "x"), count: 3_000_000), "\(relayProtocol)")
        }
        XCTAssertEqual(try requests("/unlength/"), 2)
    }

    /// Without a relay (a host no relay configuration covers), libcurl alone sees the origin's
    /// TLS: a cut is a truncation there too, and a close_notify ends a whole body.
    func testBodyWithoutLengthOnADirectRoute() async throws {
        var configuration = TestServers.configuration(hops: [])
        configuration.idleTimeout = 5
        configuration.directHostAddresses = ["origin.test:\(origin.port)": "127.0.0.21"]
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        let error = await session.fetchError(url("/truncate-unlength/5000"))
        XCTAssertTrue(error?.description.contains("the TLS stream from origin.test:\(origin.port) was cut (no close_notify)") == true,
                      error?.description ?? "accepted a cut body")
        let (body, _) = try await session.data(from: url("/unlength/70000"))
        XCTAssertEqual(body.count, 70000)
        XCTAssertEqual(try requests("/truncate-unlength/"), 1)
        XCTAssertEqual(try requests("/unlength/"), 1)
    }

    /// A response without a length on a connection that stays open: the idle timeout ends it,
    /// naming the origin and the hop it came through.
    func testSilentOriginHitsTheIdleTimeout() async throws {
        let started = Date()
        let error = try await failure(of: "/unlength-stall/1000", idleTimeout: 1.5)
        XCTAssertTrue(error.contains("no data for 1.5 s from origin.test:\(origin.port) through hop 1 (127.0.0.11:3129)"), error)
        XCTAssertLessThan(Date().timeIntervalSince(started), 15)
        XCTAssertEqual(try requests("/unlength-stall/"), 1)
    }

    /// A body that stops halfway on an open connection: the total time limit (curl's --max-time)
    /// ends it when the idle timeout is longer.
    func testStalledBodyHitsTheMaximumTime() async throws {
        let started = Date()
        let error = try await failure(of: "/stall-body/1000", idleTimeout: 60, requestTimeout: 2)
        XCTAssertTrue(error.contains("timed out after 2 s"), error)
        XCTAssertLessThan(Date().timeIntervalSince(started), 15)
    }

    func testHugeResponseHeaderIsReportedAsSuch() async throws {
        let error = try await failure(of: "/big-header/1048576")
        XCTAssertTrue(error.contains("the response headers from origin.test:\(origin.port) are too large"), error)
        XCTAssertFalse(error.lowercased().contains("out of memory"), error)
    }
}

/// Redirects that change scheme, host or port: the caller's credentials stay behind.
final class RedirectCredentialTests: XCTestCase {
    /// https://origin.test:P/redirect -> http://origin.test:Q/landing on a plain-HTTP origin that
    /// logs every header it gets.
    func testDowngradeRedirectSendsNoCredentialsInClearText() async throws {
        let secure = try HostileServer(script: "origin.py")
        let plain = try HostileServer(script: "origin.py", arguments: ["--plain"])
        defer { secure.stop(); plain.stop() }
        let marker = TestServers.marker("downgrade")
        let target = "http://origin.test:\(plain.port)/landing?\(marker)"
        let start = URL(string: "https://origin.test:\(secure.port)/redirect?to=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")!
        let session = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop()]))
        defer { session.invalidate() }
        let request = HTTPRequest(url: start, headerFields: [("Authorization", "Bearer user-secret"), ("Cookie", "session=user-cookie")])
        let (_, response) = try await session.data(for: request)
        XCTAssertEqual(response.statusCode, 200)

        let first = try secure.events().filter { $0.contains("/redirect") }
        XCTAssertEqual(first.count, 1)
        XCTAssertTrue(first[0].contains("Authorization: Bearer user-secret"), "the first hop is the origin the caller named: \(first)")
        let landed = try plain.events().filter { $0.contains(marker) }
        XCTAssertEqual(landed.count, 1, "the plain origin saw: \(String(describing: try? plain.events()))")
        XCTAssertFalse(landed[0].contains("user-secret"), landed[0])
        XCTAssertFalse(landed[0].contains("user-cookie"), landed[0])
        XCTAssertFalse(landed[0].contains("secret1"), "a Secure cookie went over http: \(landed[0])")
        XCTAssertTrue(landed[0].contains("plain=visible"), "the jar's non-Secure cookie should go: \(landed[0])")
    }

    /// Same scheme and host, another port: a different origin, so credentials stay behind too.
    func testPortChangeDropsCredentials() async throws {
        let first = try HostileServer(script: "origin.py")
        let second = try HostileServer(script: "origin.py")
        defer { first.stop(); second.stop() }
        let marker = TestServers.marker("port")
        let target = "https://origin.test:\(second.port)/landing?\(marker)"
        let start = URL(string: "https://origin.test:\(first.port)/redirect?to=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")!
        let session = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop()]))
        defer { session.invalidate() }
        _ = try await session.data(for: HTTPRequest(url: start, headerFields: [("Authorization", "Bearer user-secret")]))
        let landed = try second.events().filter { $0.contains(marker) }
        XCTAssertEqual(landed.count, 1)
        XCTAssertFalse(landed[0].contains("user-secret"), landed[0])
    }
}

/// The time limit covers a request and its redirects together, as curl's --max-time does.
final class RedirectTimeLimitTests: XCTestCase {
    func testSlowRedirectChainHitsOneLimit() async throws {
        let origin = try HostileServer(script: "origin.py")
        defer { origin.stop() }
        var configuration = TestServers.configuration(hops: [TestServers.relayHop()])
        configuration.requestTimeout = 2
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        // Each hop of the chain answers after 0.8 s: four hops need 3.2 s, over the limit of 2.
        let started = Date()
        let failure = await session.fetchError(URL(string: "https://origin.test:\(origin.port)/slow-redirect/4")!)
        let error = try XCTUnwrap(failure, "a redirect chain slower than the limit completed")
        XCTAssertTrue(error.description.contains("timed out after 2 s"), "\(error)")
        XCTAssertLessThan(Date().timeIntervalSince(started), 3)
        XCTAssertLessThanOrEqual(try origin.events().filter { $0.contains("/slow-redirect/") }.count, 3)
    }
}
