import Foundation
import XCTest
@testable import Crawler

/// Scope rules, with registrable domains from libpsl.
final class CrawlScopeTests: XCTestCase {
    func testSameHostSameDomainRegexesAndDepth() throws {
        var host = try CrawlScope()
        host.addSeed(URL(string: "https://www.example.co.uk/")!)
        var domain = try CrawlScope(hostRule: .sameDomain)
        domain.addSeed(URL(string: "https://www.example.co.uk/")!)
        let sibling = URL(string: "https://shop.example.co.uk/a")!
        let stranger = URL(string: "https://other.co.uk/a")!
        XCTAssertTrue(host.includes(URL(string: "https://www.example.co.uk/b")!, depth: 5))
        XCTAssertFalse(host.includes(sibling, depth: 1))
        XCTAssertTrue(domain.includes(sibling, depth: 1))
        XCTAssertFalse(domain.includes(stranger, depth: 1), "co.uk is a public suffix, not a shared domain")

        var filtered = try CrawlScope(allow: ["/docs/", "/blog/"], deny: ["\\.pdf$"], maximumDepth: 2)
        filtered.addSeed(URL(string: "https://example.com/")!)
        XCTAssertTrue(filtered.includes(URL(string: "https://example.com/docs/a.html")!, depth: 2))
        XCTAssertFalse(filtered.includes(URL(string: "https://example.com/docs/a.html")!, depth: 3))
        XCTAssertFalse(filtered.includes(URL(string: "https://example.com/shop/")!, depth: 1))
        XCTAssertFalse(filtered.includes(URL(string: "https://example.com/blog/a.pdf")!, depth: 1))
        XCTAssertThrowsError(try CrawlScope(allow: ["("]))
    }

    /// libpsl gives "0.1" for 10.0.0.1 and for 192.168.0.1 alike: an IP-literal seed under
    /// --same-domain must still cover only itself, never another address (a request forged into
    /// the relay's network), nor a name; IPv6 the same.
    func testAnIPLiteralSeedIsItsOwnScopeUnderSameDomain() throws {
        var scope = try CrawlScope(hostRule: .sameDomain)
        scope.addSeed(URL(string: "http://10.0.0.1/")!)
        scope.addSeed(URL(string: "https://[2001:db8::1]:8443/")!)
        scope.addSeed(URL(string: "https://www.example.com/")!)
        XCTAssertTrue(scope.includes(URL(string: "http://10.0.0.1/a")!, depth: 1))
        XCTAssertTrue(scope.includes(URL(string: "https://[2001:db8::1]/b")!, depth: 1))
        XCTAssertTrue(scope.includes(URL(string: "https://shop.example.com/")!, depth: 1), "names still share their domain")
        for outside in ["http://192.168.0.1/", "http://10.1.0.1/", "http://172.16.0.1/", "http://127.0.0.1/", "http://0.1/", "http://a.0.1/",
                        "http://10.0.1/", "http://0x0a.0.0.1/", "http://167772161/", "https://[2001:db8::2]/", "https://[::1]/",
                        "https://[2001:db8:0:0:0:0:0:2]/"] {
            XCTAssertFalse(scope.includes(URL(string: outside)!, depth: 1), outside)
            XCTAssertFalse(scope.includes(outside, host: URL(string: outside)!.host!.lowercased(), depth: 1), outside)
        }
    }

    func testWhatCountsAsAnIPLiteral() {
        for address in ["10.0.0.1", "127.1", "0x7f.1", "2130706433", "2001:db8::1", "::1", "1.2.3.0x4"] {
            XCTAssertTrue(CrawlScope.isIPLiteral(address), address)
        }
        for name in ["example.com", "0.example", "1password.com", "x.y1", "co.uk"] { XCTAssertFalse(CrawlScope.isIPLiteral(name), name) }
    }
}
