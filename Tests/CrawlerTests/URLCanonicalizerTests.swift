import Foundation
import XCTest
@testable import Crawler

/// Every spelling of one URL becomes one string; different URLs stay different.
final class URLCanonicalizerTests: XCTestCase {
    func testTableOfSpellings() {
        let canonicalizer = URLCanonicalizer(strippedQueryParameters: ["utm_source", "ref"])
        let cases: [(String, String?)] = [
            ("HTTPS://Example.COM/a", "https://example.com/a"),
            ("https://example.com", "https://example.com/"),
            ("https://example.com:443/a", "https://example.com/a"),
            ("http://example.com:80/a", "http://example.com/a"),
            ("https://example.com:8443/a", "https://example.com:8443/a"),
            ("http://example.com:443/a", "http://example.com:443/a"),
            ("https://example.com./a", "https://example.com/a"),
            ("https://example.com/a/./b/../c", "https://example.com/a/c"),
            ("https://example.com/../../a", "https://example.com/a"),
            ("https://example.com/a/b/..", "https://example.com/a/"),
            ("https://example.com/a/.", "https://example.com/a/"),
            ("https://example.com/a#frag", "https://example.com/a"),
            ("https://example.com/%7Euser/%70age", "https://example.com/~user/page"),
            ("https://example.com/a%2fb", "https://example.com/a%2Fb"),
            ("https://example.com/a%2Fb", "https://example.com/a%2Fb"),
            ("https://example.com/caf%c3%a9", "https://example.com/caf%C3%A9"),
            ("https://example.com/?q=%41%3d", "https://example.com/?q=A%3D"),
            ("https://example.com/a?utm_source=x", "https://example.com/a"),
            ("https://example.com/a?x=1&utm_source=feed&y=2", "https://example.com/a?x=1&y=2"),
            ("https://example.com/a?ref=1&ref=2&b", "https://example.com/a?b"),
            ("https://example.com/a?", "https://example.com/a"),
            ("https://example.com/a?b=2&a=1", "https://example.com/a?b=2&a=1"),
            ("https://user:pw@example.com/a", "https://user:pw@example.com/a"),
            ("ftp://example.com/a", nil),
            ("mailto:someone@example.com", nil),
            ("https:///nohost", nil),
        ]
        for (input, expected) in cases {
            let url = URL(string: input)
            let canonical = url.flatMap(canonicalizer.canonical)?.absoluteString
            XCTAssertEqual(canonical, expected, input)
        }
    }

    func testCanonicalFormIsAFixedPoint() {
        let canonicalizer = URLCanonicalizer()
        for input in ["HTTP://A.example:80/x/../y/%7e?%61=1#f", "https://b.example/caf%c3%a9/./", "https://c.example:8443"] {
            let once = canonicalizer.canonical(URL(string: input)!)
            XCTAssertNotNil(once, input)
            XCTAssertEqual(once.flatMap(canonicalizer.canonical), once, input)
        }
    }

    func testWithoutStrippingTheQueryStays() {
        let url = URL(string: "https://example.com/a?utm_source=x")!
        XCTAssertEqual(URLCanonicalizer().canonical(url)?.absoluteString, "https://example.com/a?utm_source=x")
    }

    func testDotSegmentRemovalFollowsRFC3986Examples() {
        // RFC 3986 5.2.4's own examples.
        XCTAssertEqual(URLCanonicalizer.removingDotSegments("/a/b/c/./../../g"), "/a/g")
        XCTAssertEqual(URLCanonicalizer.removingDotSegments("mid/content=5/../6"), "mid/6")
    }
}
