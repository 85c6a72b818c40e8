import Foundation
import XCTest
import HeadlessPage
import RelayFetch
import RelayFetchTestSupport

/// `Referer` as browsers send it by default (strict-origin-when-cross-origin), with the page's
/// `<meta name="referrer">` and elements' `referrerpolicy` honoured, checked in the logs of the
/// origins that received the requests.
final class ReferrerPolicyTests: XCTestCase {
    private var servers: [HostileServer] = []

    // Stopped here, on the main thread: Process.waitUntilExit can spin on a task's thread.
    override func tearDown() { servers.forEach { $0.stop() } }

    func testPolicyValues() {
        let page = URL(string: "https://user:pw@origin.test/a/page.html?q=1#frag")!
        let same = URL(string: "https://origin.test/img.png")!
        let cross = URL(string: "https://origin2.test/img.png")!
        let plain = URL(string: "http://origin.test/img.png")!
        let policy = ReferrerPolicy.strictOriginWhenCrossOrigin
        XCTAssertEqual(policy.referer(from: page, to: same), "https://origin.test/a/page.html?q=1")
        XCTAssertEqual(policy.referer(from: page, to: cross), "https://origin.test/")
        XCTAssertNil(policy.referer(from: page, to: plain))
        XCTAssertEqual(ReferrerPolicy.unsafeURL.referer(from: page, to: plain), "https://origin.test/a/page.html?q=1")
        XCTAssertNil(ReferrerPolicy.noReferrer.referer(from: page, to: same))
        XCTAssertNil(ReferrerPolicy.sameOrigin.referer(from: page, to: URL(string: "https://origin.test:8443/x")!))
        XCTAssertEqual(ReferrerPolicy.origin.referer(from: URL(string: "https://origin.test:8443/p")!, to: same), "https://origin.test:8443/")
        XCTAssertEqual(ReferrerPolicy(parsing: "no-referrer, bogus, Origin "), .origin)
        XCTAssertNil(ReferrerPolicy(parsing: "never"))
    }

    /// What each origin's log says each request carried, by path.
    private func referers(_ server: HostileServer) throws -> [String: String] {
        var result: [String: String] = [:]
        for line in try server.events() where line.hasPrefix("REQ\t") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            result[String(fields[1].split(separator: "?")[0])] = fields[2]
        }
        return result
    }

    private func loadReferrerPage(meta: String?) async throws -> (page: String, main: [String: String], other: [String: String], plain: [String: String]) {
        let main = try HostileServer(script: "page_origin.py")
        let other = try HostileServer(script: "page_origin.py")
        let plain = try HostileServer(script: "page_origin.py", arguments: ["--plain"])
        servers += [main, other, plain]
        let session = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop()]))
        defer { session.invalidate() }
        let page = "https://origin.test:\(main.port)/referer-page?other=\(other.port)&plain=\(plain.port)" + (meta.map { "&meta=\($0)" } ?? "")
        let loaded = try await PageLoader(session: session, options: .complete).load(URL(string: page + "#section")!)
        XCTAssertEqual(loaded.resources.count, 6)
        return (page, try referers(main), try referers(other), try referers(plain))
    }

    func testDefaultPolicyGivesOtherOriginsTheOriginOnlyAndHTTPNothing() async throws {
        let (page, main, other, plain) = try await loadReferrerPage(meta: nil)
        let origin = URL(string: page)!
        let originOnly = "https://origin.test:\(origin.port!)/"
        XCTAssertEqual(main["/referer-page"], "-", "the page itself goes without a Referer")
        XCTAssertEqual(main["/ref/same.png"], page, "same origin: the full URL, no fragment")
        XCTAssertEqual(other["/ref/cross.png"], originOnly, "another origin: the origin only")
        XCTAssertEqual(plain["/ref/plain.png"], "-", "https to http: nothing")
        XCTAssertEqual(main["/ref/attribute-none.png"], "-", "referrerpolicy=no-referrer")
        XCTAssertEqual(other["/ref/attribute-unsafe.png"], page, "referrerpolicy=unsafe-url")
        XCTAssertEqual(main["/redirect"], page)
        XCTAssertEqual(other["/ref/after-redirect.png"], originOnly, "worked out again after a cross-origin redirect")
    }

    func testMetaReferrerOverridesTheDefault() async throws {
        let (_, main, other, plain) = try await loadReferrerPage(meta: "no-referrer")
        XCTAssertEqual(main["/ref/same.png"], "-")
        XCTAssertEqual(other["/ref/cross.png"], "-")
        XCTAssertEqual(plain["/ref/plain.png"], "-")
        XCTAssertNotNil(other["/ref/attribute-unsafe.png"], "the origin logged the request")
        XCTAssertNotEqual(other["/ref/attribute-unsafe.png"], "-", "an element's own policy still wins")
    }
}
