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
}
