import Foundation
import XCTest
@testable import RelayFetch
import RelayFetchTestSupport

/// RFC 6265bis limits: 50 cookies per domain and 3000 in all (least recently used evicted,
/// insecure ones of the crowded domain first), 4096 octets of name and value, 1024 per attribute.
final class CookieLimitsTests: XCTestCase {
    private let site = URL(string: "https://www.example.com/")!

    func testPerDomainLimitEvictsInsecureThenLeastRecentlyUsed() {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let jar = CookieJar(limits: CookieLimits(perDomain: 3, total: 100), clock: { clock.now })
        jar.store(setCookieValues: ["secure=1; Secure; Path=/", "old=1; Path=/", "used=1; Path=/"], from: site)
        clock.advance(1)
        jar.store(setCookieValues: ["used=2; Path=/"], from: site)  // replaced: its use is recent now
        clock.advance(1)
        jar.store(setCookieValues: ["new=1; Path=/"], from: site)
        XCTAssertEqual(Set(jar.allCookies.map(\.name)), ["secure", "used", "new"], "the least recently used insecure cookie goes")
        clock.advance(1)
        jar.store(setCookieValues: ["s2=1; Secure; Path=/", "s3=1; Secure; Path=/"], from: site)
        XCTAssertEqual(Set(jar.allCookies.map(\.name)), ["secure", "s2", "s3"], "insecure cookies of the domain go before secure ones")
        jar.store(setCookieValues: ["other=1"], from: URL(string: "https://example.org/")!)
        XCTAssertEqual(jar.allCookies.count, 4, "another domain has its own allowance")
    }

    func testSendingACookieMakesItRecentlyUsed() {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let jar = CookieJar(limits: CookieLimits(perDomain: 2, total: 100), clock: { clock.now })
        jar.store(setCookieValues: ["a=1; Path=/"], from: site)
        clock.advance(1)
        jar.store(setCookieValues: ["b=1; Path=/cart"], from: site)
        clock.advance(1)
        XCTAssertEqual(jar.cookieHeader(for: URL(string: "https://www.example.com/")!), "a=1")
        clock.advance(1)
        jar.store(setCookieValues: ["c=1; Path=/"], from: site)
        XCTAssertEqual(Set(jar.allCookies.map(\.name)), ["a", "c"], "b was set after a but a was sent since")
    }

    func testTotalLimitEvictsLeastRecentlyUsedAcrossDomains() {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let jar = CookieJar(limits: CookieLimits(perDomain: 50, total: 3), clock: { clock.now })
        for host in ["a.example", "b.example", "c.example", "d.example"] {
            jar.store(setCookieValues: ["k=\(host)"], from: URL(string: "https://\(host)/")!)
            clock.advance(1)
        }
        XCTAssertEqual(Set(jar.allCookies.map(\.value)), ["b.example", "c.example", "d.example"])
    }

    func testSizeRulesOfTheParser() {
        let jar = CookieJar()
        jar.store(setCookieValues: ["big=" + String(repeating: "x", count: 4093), "toobig=" + String(repeating: "x", count: 4091),
                                    "=", "  ", "nameless", "=__Host-x", "bad=1\u{7}", "path=1; Path=/" + String(repeating: "p", count: 1024)],
                  from: URL(string: "https://www.example.com/shop/cart")!)
        XCTAssertEqual(Set(jar.allCookies.map(\.name)), ["big", "", "path"])
        XCTAssertEqual(jar.allCookies.first { $0.name == "path" }?.path, "/shop", "an attribute over 1024 octets is ignored")
        let header = jar.cookieHeader(for: URL(string: "https://www.example.com/shop/")!) ?? ""
        XCTAssertTrue(header.hasPrefix("big=xxx"), header)
        XCTAssertTrue(header.hasSuffix("; nameless; path=1"), "a nameless cookie is sent as its value alone")
    }

    func testExpiryIsCappedAt400Days() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let jar = CookieJar(clock: { now })
        jar.store(setCookieValues: ["a=1; Max-Age=999999999", "b=1; Expires=Thu, 01 Jan 2099 00:00:00 GMT"], from: site)
        for cookie in jar.allCookies {
            XCTAssertEqual(cookie.expires?.timeIntervalSince(now) ?? 0, 400 * 86400, accuracy: 1, cookie.name)
        }
        XCTAssertEqual(jar.allCookies.count, 2)
    }

    /// A hostile origin sets 2,000 cookies (and two oversized ones) through relay A; what it then
    /// receives, by its own log, is the 50 most recent, a bounded header.
    func testAHostileOriginCannotGrowTheCookieHeader() async throws {
        try TestServers.ensureRunning()
        let origin = try HostileServer(script: "cookie_flood.py")
        defer { origin.stop() }
        let session = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop()]))
        defer { session.invalidate() }
        let base = "https://origin.test:\(origin.port)"
        _ = try await session.data(from: URL(string: "\(base)/flood?n=2000")!)
        _ = try await session.data(from: URL(string: "\(base)/echo")!)

        let events = try origin.events()
        XCTAssertTrue(events.contains("flood\t2000"), "\(events)")
        let echo = try XCTUnwrap(events.first { $0.hasPrefix("cookie\t/echo\t") }, "the origin logged no request to /echo: \(events)")
        let fields = echo.split(separator: "\t").map(String.init)
        let octets = try XCTUnwrap(Int(fields[2])), count = try XCTUnwrap(Int(fields[3]))
        XCTAssertEqual(count, 50, "50 cookies per domain: \(echo)")
        XCTAssertLessThan(octets, 50 * 24, "the header stays small: \(echo)")
        XCTAssertEqual(fields[4], "c1951", "the oldest were evicted: \(echo)")
        XCTAssertEqual(fields[5], "longpath", "its 1100-octet Path was ignored, so it has the default path /: \(echo)")
        XCTAssertEqual(session.dataStore.cookieJar.allCookies.count, 50)
        XCTAssertFalse(session.dataStore.cookieJar.allCookies.contains { $0.name == "huge" }, "over 4096 octets: ignored")
    }
}

/// A site spreading cookies over many subdomains stays within its own allowance.
final class CookieSiteLimitTests: XCTestCase {
    func testSubdomainsShareTheirSiteAllowanceAndOtherSitesKeepTheirCookies() {
        let jar = CookieJar()
        jar.store(setCookieValues: ["idp-session=1; Secure; Path=/"], from: URL(string: "https://login.example.org/")!)
        for sub in 0..<60 {
            let values = (0..<50).map { "c\($0)=\(sub); Path=/" }
            jar.store(setCookieValues: values, from: URL(string: "https://s\(sub).evil.example/")!)
        }
        let evil = jar.allCookies.filter { $0.domain.hasSuffix("evil.example") }
        XCTAssertEqual(evil.count, CookieLimits.rfc6265bis.perSite, "one site keeps at most its allowance")
        XCTAssertTrue(jar.allCookies.contains { $0.name == "idp-session" }, "another site's cookie was pushed out")
    }
}
