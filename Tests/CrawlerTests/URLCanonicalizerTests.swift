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

    /// A host of dots only ("//../x" on a page) was cut to "." and made a URL that reads back as
    /// none; every final dot goes now, so such a host is no host.
    func testHostsOfDotsAreNoHosts() {
        let canonicalizer = URLCanonicalizer()
        for reference in ["//../x/%7e", "//./x", "http://.../"] {
            XCTAssertNil(canonicalizer.canonical(reference, relativeTo: "https://origin.test/dir/page.html"), reference)
        }
        XCTAssertEqual(canonicalizer.canonical("//a../x", relativeTo: "https://origin.test/")?.url, "https://a/x")
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

    /// RFC 3986 section 5.4's examples, normal and abnormal, resolved on text (fragments are
    /// dropped on the way in).
    func testReferenceResolutionFollowsRFC3986Examples() {
        let base = URLReference("http://a/b/c/d;p?q")
        let cases: [(String, String)] = [
            ("g:h", "g:h"), ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"), ("/g", "http://a/g"),
            ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"), ("#s", "http://a/b/c/d;p?q"),
            ("g#s", "http://a/b/c/g"), ("g?y#s", "http://a/b/c/g?y"), (";x", "http://a/b/c/;x"), ("g;x", "http://a/b/c/g;x"),
            ("", "http://a/b/c/d;p?q"), (".", "http://a/b/c/"), ("./", "http://a/b/c/"), ("..", "http://a/b/"), ("../", "http://a/b/"),
            ("../g", "http://a/b/g"), ("../..", "http://a/"), ("../../", "http://a/"), ("../../g", "http://a/g"),
            ("../../../g", "http://a/g"), ("../../../../g", "http://a/g"), ("/./g", "http://a/g"), ("/../g", "http://a/g"),
            ("g.", "http://a/b/c/g."), (".g", "http://a/b/c/.g"), ("g..", "http://a/b/c/g.."), ("..g", "http://a/b/c/..g"),
            ("./../g", "http://a/b/g"), ("./g/.", "http://a/b/c/g/"), ("g/./h", "http://a/b/c/g/h"), ("g/../h", "http://a/b/c/h"),
            ("g;x=1/./y", "http://a/b/c/g;x=1/y"), ("g;x=1/../y", "http://a/b/c/y"), ("g?y/./x", "http://a/b/c/g?y/./x"),
            (" \tg\n/h ", "http://a/b/c/g/h"),
        ]
        for (reference, expected) in cases {
            let target = URLReference(reference).resolved(against: base)
            var text = target.scheme.map { String($0) + ":" } ?? ""
            if let authority = target.authority { text += "//" + authority }
            text += target.path
            if let query = target.query { text += "?" + query }
            XCTAssertEqual(text, expected, reference)
        }
    }

    /// Links resolved and made canonical on text, with their hosts; malformed hosts and ports refused.
    func testLinksResolvedAndMadeCanonicalOnText() {
        let canonicalizer = URLCanonicalizer(strippedQueryParameters: ["utm_source"])
        let base = "https://Example.com/dir/page.html?x=1"
        let cases: [(String, String?, String?)] = [
            ("other.html#top", "https://example.com/dir/other.html", "example.com"),
            ("../a b.html?utm_source=x&k=v", "https://example.com/a%20b.html?k=v", "example.com"),
            ("//CDN.example.net:443/x/./y", "https://cdn.example.net/x/y", "cdn.example.net"),
            ("http://[::1]:8080/p", "http://[::1]:8080/p", "::1"),
            ("mailto:a@example.com", nil, nil),
            ("javascript:void(0)", nil, nil),
            ("https://bad host/", nil, nil),
            ("https://example.com:99999/", nil, nil),
            ("https://example.com:/a", "https://example.com/a", "example.com"),
        ]
        for (reference, url, host) in cases {
            let result = canonicalizer.canonical(reference, relativeTo: base)
            XCTAssertEqual(result?.url, url, reference)
            XCTAssertEqual(result?.host, host, reference)
        }
    }
}
