import Foundation
import XCTest
import HeadlessPage
import RelayFetch
import RelayFetchTestSupport

/// One redirect policy for `Session` and `Navigator` (Samples/servers/hostile/
/// redirect_policy_origin.py through relay A): a body never follows a 307/308 to another origin
/// (the redirect comes back as the response),
/// credentials stay with their origin, relay headers never reach an origin, and a loop is a loop
/// for both. What was sent is read from the origin's own log.
final class RedirectPolicyTests: XCTestCase {
    private var origin: HostileServer!
    private var session: Session!

    override func setUpWithError() throws {
        origin = try HostileServer(script: "redirect_policy_origin.py")
        var hop = TestServers.relayHop()
        hop.additionalHTTPHeaderFields["X-Relay-Token"] = "hop-only-token"
        session = try Session(configuration: TestServers.configuration(hops: [hop]))
    }

    override func tearDown() {
        session?.invalidate()
        origin?.stop()
    }

    private var base: String { "https://origin.test:\(origin.port)" }
    private var other: String { "https://www.origin.test:\(origin.port)" }

    /// The requests the origin saw: method, Host, target, body length, credential fields carried.
    private func requests() throws -> [(method: String, host: String, target: String, bodyLength: Int, fields: String)] {
        try origin.events().filter { $0.hasPrefix("REQ\t") }.map { line in
            let parts = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return (parts[1], parts[2], parts[3], Int(parts[4]) ?? -1, parts[5])
        }
    }

    private func post(_ url: String) -> HTTPRequest {
        HTTPRequest(url: URL(string: url)!, method: "POST", headerFields: [("Content-Type", "application/x-www-form-urlencoded"), ("Authorization", "Bearer caller-secret")],
                    body: Data("password=hunter2-long".utf8))
    }

    func testABodyFollowsA307OnlyWithinItsOriginForSessionAndNavigator() async throws {
        let crossing = "\(base)/status/307?to=\(other)/landing"
        let (_, response) = try await session.data(for: post(crossing))
        XCTAssertEqual(response.statusCode, 307, "the session gives the redirect back instead of carrying the body across origins")
        let navigator = Navigator(session: session)
        let outcome = try await navigator.navigate(post(crossing), from: URL(string: "\(base)/form"))
        guard case .page(let stopped) = outcome else { return XCTFail("expected the 307 as the page, got \(outcome)") }
        XCTAssertEqual(stopped.statusCode, 307, "the navigator stops at the redirect instead of carrying the body across origins")
        // Within the origin, 307 and 308 keep the method and the body, for both.
        _ = try await session.data(for: post("\(base)/status/308?to=/same-a"))
        _ = try await navigator.navigate(post("\(base)/status/307?to=/same-b"), from: URL(string: "\(base)/form"))

        let seen = try requests()
        XCTAssertEqual(seen.filter { $0.target.hasPrefix("/status/307?to=https") }.count, 2, "both asked the origin once")
        XCTAssertFalse(seen.contains { $0.host.hasPrefix("www.origin.test") }, "nothing reached the other origin: \(seen)")
        for path in ["/same-a", "/same-b"] {
            let landed = try XCTUnwrap(seen.first { $0.target == path }, "\(path) was requested")
            XCTAssertEqual(landed.method, "POST")
            XCTAssertEqual(landed.bodyLength, "password=hunter2-long".utf8.count)
        }
    }

    func testCredentialsAndRelayHeadersStayWithTheirOriginAcrossA303() async throws {
        var request = post("\(base)/status/303?to=\(other)/after-303")
        request.headerFields.append(("Proxy-Authorization", "Basic caller-proxy"))
        let outcome = try await Navigator(session: session).navigate(request, from: URL(string: "\(base)/form"))
        guard case .page(let page) = outcome else { return XCTFail("expected a page, got \(outcome)") }
        XCTAssertEqual(page.url.absoluteString, "\(other)/after-303")
        _ = try await session.data(for: { var get = HTTPRequest(url: URL(string: "\(base)/status/302?to=\(other)/after-302")!)
            get.headerFields = [("Authorization", "Bearer caller-secret"), ("Cookie", "mine=1")]
            return get }())

        let seen = try requests()
        let first = try XCTUnwrap(seen.first { $0.target.hasPrefix("/status/303") })
        XCTAssertEqual(first.fields, "authorization,proxy-authorization,origin", "the origin's log records the fields")
        let after303 = try XCTUnwrap(seen.first { $0.target == "/after-303" })
        XCTAssertEqual(after303.method, "GET")
        XCTAssertEqual(after303.bodyLength, 0)
        XCTAssertEqual(after303.fields, "-", "no credential, relay header or Origin followed the 303 to another origin")
        let after302 = try XCTUnwrap(seen.first { $0.target == "/after-302" })
        XCTAssertEqual(after302.fields, "-")
        XCTAssertFalse(seen.contains { $0.fields.contains("x-relay-token") }, "the hop's header never reached the origin")
    }

    func testALoopIsALoopForTheNavigatorAsForTheSession() async throws {
        for load in [{ _ = try await self.session.data(from: URL(string: "\(self.base)/loop-a")!) },
                     { _ = try await Navigator(session: self.session).open(URL(string: "\(self.base)/loop-a")!) }] {
            do {
                try await load()
                XCTFail("a redirect loop must not load")
            } catch let error as FetchError {
                XCTAssertEqual(error.description, "redirect loop at \(base)/loop-a")
            }
        }
        XCTAssertEqual(try requests().count, 4, "each stopped at the first repeat: /loop-a, /loop-b, twice")
    }
}
