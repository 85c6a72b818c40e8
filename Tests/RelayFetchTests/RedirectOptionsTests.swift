import Foundation
import XCTest
@testable import RelayFetch

/// curl's --post301/302/303 and --referer ";auto" as `RedirectFollower` applies them, without I/O.
final class RedirectOptionsTests: XCTestCase {
    private let start = URL(string: "https://origin.test/form?step=1#part")!
    private let sameOrigin = URL(string: "https://origin.test/done")!

    private func post(keeping statuses: Set<Int> = [], method: String = "POST") -> HTTPRequest {
        var request = HTTPRequest(url: start, method: method, headerFields: [("Content-Type", "text/plain")], body: Data("x".utf8))
        request.postKeptOnRedirects = statuses
        return request
    }

    func testAPOSTIsKeptOnlyAfterTheStatusesNamed() throws {
        for status in [301, 302, 303] {
            let kept = try XCTUnwrap(RedirectFollower.redirected(post(keeping: [status]), to: sameOrigin, status: status))
            XCTAssertEqual(kept.method, "POST", "\(status)")
            XCTAssertEqual(kept.body, Data("x".utf8), "\(status)")
            XCTAssertEqual(kept.headerFields.first?.name, "Content-Type")
            let changed = try XCTUnwrap(RedirectFollower.redirected(post(keeping: Set([301, 302, 303]).subtracting([status])), to: sameOrigin, status: status))
            XCTAssertEqual(changed.method, "GET", "\(status) without its option")
            XCTAssertNil(changed.body)
        }
        // curl keeps only a POST: a PUT after a 303 still becomes a GET.
        XCTAssertEqual(RedirectFollower.redirected(post(keeping: [303], method: "PUT"), to: sameOrigin, status: 303)?.method, "GET")
        // A kept POST still never goes to another origin by default.
        XCTAssertNil(RedirectFollower.redirected(post(keeping: [302]), to: URL(string: "https://elsewhere.test/")!, status: 302))
    }

    func testAutoRefererNamesThePreviousURL() throws {
        var request = HTTPRequest(url: start)
        let plain = try XCTUnwrap(RedirectFollower.redirected(request, to: sameOrigin, status: 302))
        XCTAssertNil(plain.referrer)
        request.refersOnRedirects = true
        let next = try XCTUnwrap(RedirectFollower.redirected(request, to: URL(string: "https://elsewhere.test/")!, status: 302))
        XCTAssertEqual(next.referrer, start)
        XCTAssertEqual(next.referrerPolicy.referer(from: start, to: next.url), "https://origin.test/form?step=1", "full, without the fragment")
    }
}
