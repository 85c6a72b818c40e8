import Foundation
import XCTest
@testable import RelayFetch

final class CookieJarTests: XCTestCase {
    private let site = URL(string: "https://www.example.com/shop/cart")!

    func testHostOnlyDomainPathAndSecure() {
        let jar = CookieJar()
        jar.store(setCookieValues: ["a=1", "b=2; Domain=example.com; Path=/", "c=3; Path=/shop; Secure", "d=4; Domain=.EXAMPLE.com; Path=/"], from: site)
        XCTAssertEqual(jar.cookieHeader(for: URL(string: "https://www.example.com/shop/x")!), "a=1; c=3; b=2; d=4",
                       "longer paths first, then oldest first; a's default path is /shop")
        XCTAssertEqual(jar.cookieHeader(for: URL(string: "https://api.example.com/")!), "b=2; d=4", "host-only cookies stay on their host")
        XCTAssertEqual(jar.cookieHeader(for: URL(string: "http://www.example.com/shop/x")!), "a=1; b=2; d=4", "Secure only over https")
        XCTAssertNil(jar.cookieHeader(for: URL(string: "https://example.org/")!))
        XCTAssertEqual(jar.cookieHeader(for: URL(string: "https://www.example.com/shopping")!), "b=2; d=4", "paths match on / boundaries")
    }

    func testPublicSuffixesAndForeignDomainsAreRefused() {
        let jar = CookieJar()
        jar.store(setCookieValues: ["a=1; Domain=com", "b=2; Domain=co.uk", "c=3; Domain=other.com", "d=4; Domain=test"], from: site)
        jar.store(setCookieValues: ["e=5; Domain=co.uk"], from: URL(string: "https://shop.co.uk/")!)
        XCTAssertTrue(jar.allCookies.isEmpty, "\(jar.allCookies)")
    }

    func testExpiryMaxAgeWinsAndDeletion() {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let jar = CookieJar(clock: { clock.now })
        jar.store(setCookieValues: ["a=1; Max-Age=60; Expires=Thu, 01 Jan 2099 00:00:00 GMT", "b=2; Expires=Thu, 01 Jan 1970 00:00:00 GMT",
                                    "c=3; Expires=Thu, 01 Jan 2099 00:00:00 GMT"], from: site)
        XCTAssertEqual(Set(jar.allCookies.map(\.name)), ["a", "c"])
        clock.advance(61)
        XCTAssertEqual(jar.allCookies.map(\.name), ["c"], "Max-Age wins over Expires")
        jar.store(setCookieValues: ["c=gone; Max-Age=0"], from: site)
        XCTAssertTrue(jar.allCookies.isEmpty)
    }

    /// Found by the cookie fuzz target: control characters were stored and sent back in the Cookie header.
    func testLinesWithControlCharactersAreIgnored() {
        let jar = CookieJar()
        jar.store(setCookieValues: ["a=1\u{11}", "b\u{0}x=2", "c=3; Path=/\u{7F}", "d=4\r\nX-Injected: 1", "tab=4\t5", "ok=6"], from: site)
        XCTAssertEqual(Set(jar.allCookies.map(\.name)), ["tab", "ok"], "only the lines without control characters (HTAB allowed) are stored")
        XCTAssertEqual(jar.cookieHeader(for: site), "tab=4\t5; ok=6")
    }

    /// Found by the cookie fuzz target: a non-ASCII Expires value made Foundation's DateFormatter
    /// trap ("Incorrect range"), so a server could crash the client with one Set-Cookie header.
    func testNonASCIIDatesAreNoDatesAndDoNotCrash() {
        for text in ["Thu, 1 Jan 1970 00:00:00\u{5B8}MT", "Thu, 01 Jan 39-CS00:00:00 G\u{FFFD}T", "Thu, 01 Jan 2099 00:00:00 GMT" + String(repeating: " ", count: 60)] {
            XCTAssertNil(HTTPDate.parse(text), text.debugDescription)
        }
        XCTAssertNotNil(HTTPDate.parse("Thu, 01 Jan 2099 00:00:00 GMT"))
        let jar = CookieJar()
        jar.store(setCookieValues: ["a=1; Expires=Thu, 1 Jan 1970 00:00:00\u{5B8}MT"], from: site)
        XCTAssertEqual(jar.allCookies.map(\.name), ["a"], "an unreadable Expires leaves a session cookie")
        XCTAssertNil(jar.allCookies.first?.expires)
    }

    func testPrefixesHttpOnlyAndReplacement() {
        let jar = CookieJar()
        jar.store(setCookieValues: ["__Secure-a=1", "__Secure-b=2; Secure", "__Host-c=3; Secure; Path=/", "__Host-d=4; Secure; Path=/; Domain=example.com",
                                    "__Host-e=5; Secure; Path=/shop"], from: site)
        XCTAssertEqual(Set(jar.allCookies.map(\.name)), ["__Secure-b", "__Host-c"])
        jar.store(setCookieValues: ["s=1; Secure"], from: URL(string: "http://www.example.com/")!)
        XCTAssertFalse(jar.allCookies.contains { $0.name == "s" }, "Secure cookies only from secure origins")
        jar.store(setCookieValues: ["h=1; HttpOnly; Path=/", "h=2; Path=/"], from: site)
        XCTAssertEqual(jar.allCookies.filter { $0.name == "h" }.map(\.value), ["2"], "same name, domain and path replace")
    }

    func testSameSiteOnCrossSiteRequests() {
        let jar = CookieJar()
        jar.store(setCookieValues: ["lax=1; Path=/", "strict=2; SameSite=Strict; Path=/", "none=3; SameSite=None; Secure; Path=/",
                                    "insecureNone=4; SameSite=None; Path=/"], from: site)
        XCTAssertEqual(jar.cookieHeader(for: site, siteForCookies: URL(string: "https://shop.example.com/")!), "lax=1; strict=2; none=3; insecureNone=4")
        XCTAssertEqual(jar.cookieHeader(for: site, siteForCookies: URL(string: "https://news.example.org/")!), "none=3",
                       "cross-site: only SameSite=None (which needs Secure)")
    }
}

final class HTTPCacheTests: XCTestCase {
    private func response(_ fields: [(String, String)], status: Int = 200) -> HTTPResponse {
        HTTPResponse(statusCode: status, httpVersion: "HTTP/2", headerFields: HTTPFields(fields.map { (name: $0.0, value: $0.1) }),
                     url: URL(string: "https://x.test/a")!, relayHops: [])
    }

    func testFreshThenStaleThenRevalidated() {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let cache = HTTPCache(clock: { clock.now })
        let request = HTTPRequest(url: URL(string: "https://x.test/a")!)
        cache.store(request, response: response([("Cache-Control", "max-age=60"), ("ETag", "\"v1\"")]), body: Data("one".utf8))
        guard case .fresh(let entry) = cache.lookup(request) else { return XCTFail("fresh within max-age") }
        XCTAssertEqual(entry.body, Data("one".utf8))
        clock.advance(61)
        guard case .revalidate(let stale, let conditions) = cache.lookup(request) else { return XCTFail("stale with a validator") }
        XCTAssertEqual(conditions.map(\.name), ["If-None-Match"])
        XCTAssertEqual(conditions.first?.value, "\"v1\"")
        let refreshed = cache.refresh(stale, with: response([("Cache-Control", "max-age=60")], status: 304), for: request)
        XCTAssertEqual(refreshed.response.statusCode, 200)
        guard case .fresh = cache.lookup(request) else { return XCTFail("fresh again after the 304") }
    }

    func testWhatIsNotStored() {
        let cache = HTTPCache()
        let url = URL(string: "https://x.test/a")!
        let cases: [(HTTPRequest, HTTPResponse)] = [
            (HTTPRequest(url: url), response([("Cache-Control", "no-store"), ("ETag", "\"x\"")])),
            (HTTPRequest(url: url), response([("Cache-Control", "max-age=60"), ("Vary", "Cookie")])),
            (HTTPRequest(url: url, method: "POST", body: Data()), response([("Cache-Control", "max-age=60")])),
            (HTTPRequest(url: url, headerFields: [("Authorization", "Bearer x")]), response([("Cache-Control", "max-age=60")])),
            (HTTPRequest(url: url), response([("Cache-Control", "max-age=60")], status: 404)),
            (HTTPRequest(url: url), response([])),
            (HTTPRequest(url: url, headerFields: [("Cache-Control", "no-store")]), response([("Cache-Control", "max-age=60")])),
        ]
        for (request, response) in cases {
            cache.store(request, response: response, body: Data("x".utf8))
            guard case .miss = cache.lookup(HTTPRequest(url: url)) else { return XCTFail("\(response.headerFields) must not be cached") }
        }
        cache.store(HTTPRequest(url: url), response: response([("Cache-Control", "max-age=60")]), body: Data("x".utf8))
        guard case .fresh = cache.lookup(HTTPRequest(url: url)) else { return XCTFail("stored") }
        guard case .miss = cache.lookup(HTTPRequest(url: url, headerFields: [("Cache-Control", "no-cache")])) else {
            return XCTFail("a request that says no-cache goes to the network")
        }
    }

    /// Past its total size the cache drops what was stored longest ago; a URL stored again counts
    /// from its latest store, and its size is counted once.
    func testTheOldestStoreIsDroppedFirst() {
        let cache = HTTPCache(maximumTotalSize: 10)
        func request(_ name: String) -> HTTPRequest { HTTPRequest(url: URL(string: "https://x.test/\(name)")!) }
        func store(_ name: String, _ size: Int) {
            cache.store(request(name), response: response([("Cache-Control", "max-age=60")]), body: Data(count: size))
        }
        func kept() -> [String] {
            ["a", "b", "c", "d"].filter { if case .fresh = cache.lookup(request($0)) { return true } else { return false } }
        }
        store("a", 4)
        store("b", 4)
        store("a", 4)
        XCTAssertEqual(cache.totalSize, 8)
        store("c", 4)
        XCTAssertEqual(kept(), ["a", "c"], "b was stored longest ago; a again after it")
        store("d", 6)
        XCTAssertEqual(kept(), ["c", "d"])
        XCTAssertEqual(cache.totalSize, 10)
    }
}
