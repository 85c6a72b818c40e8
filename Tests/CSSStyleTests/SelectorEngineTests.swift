import Foundation
import XCTest
@testable import CSSStyle
import HTMLDOM

/// The Selectors Level 4 engine behind `select` and the cascade.
final class SelectorEngineTests: XCTestCase {
    private let document = HTMLDocument(data: Data("""
        <html lang="en-GB"><body>
        <div id="main" class="box wide" data-kind="Card"><p class="note first">one</p><p class="note">two</p>
          <a href="/x" rel="next prev" hreflang="en-US">x</a><span></span><p lang="fr">trois</p></div>
        <ul><li>a</li><li class="odd">b</li><li>c</li><li>d</li><li>e</li></ul>
        <form><input type="text" placeholder="q" required><input type="checkbox" checked disabled><button>go</button></form>
        <section><h2>t</h2><p>after h2</p><p>later</p></section>
        </body></html>
        """.utf8), url: URL(string: "https://x.test/")!)!

    private func texts(_ selector: String) -> [String] { document.select(selector).map { $0.normalizedText } }
    private func names(_ selector: String) -> [String] { document.select(selector).map(\.name) }

    func testCombinators() {
        XCTAssertEqual(texts("#main > p.note"), ["one", "two"])
        XCTAssertEqual(texts("p.first + p"), ["two"])
        XCTAssertEqual(texts("h2 ~ p"), ["after h2", "later"])
        XCTAssertEqual(texts("body section p"), ["after h2", "later"])
        XCTAssertEqual(texts("ul>li:first-child"), ["a"])
    }

    func testAttributeOperatorsAndFlags() {
        XCTAssertEqual(names("[rel~=prev]"), ["a"])
        XCTAssertEqual(names("[hreflang|=en]"), ["a"])
        XCTAssertEqual(names("[href^='/']"), ["a"])
        XCTAssertEqual(names("[href$=x]"), ["a"])
        XCTAssertEqual(names("[data-kind*=ar]"), ["div"])
        XCTAssertEqual(names("[data-kind=card]"), [])
        XCTAssertEqual(names("[data-kind=card i]"), ["div"])
        XCTAssertEqual(names("input[type=TEXT]"), ["input"], "type values compare without case in HTML")
    }

    func testLogicalPseudoClasses() {
        XCTAssertEqual(texts("#main p:not(.first)"), ["two", "trois"])
        XCTAssertEqual(texts("li:is(.odd, :last-child)"), ["b", "e"])
        XCTAssertEqual(texts("li:where(.odd)"), ["b"])
        XCTAssertEqual(texts("li:is(.odd, :unknown-thing)"), ["b"], ":is() forgives an invalid member")
        XCTAssertTrue(document.select("li:not(:unknown-thing)").isEmpty, ":not() does not")
        XCTAssertEqual(names("div:has(> a[href])"), ["div"])
        XCTAssertEqual(names("section:has(h2 + p)"), ["section"])
    }

    func testStructuralPseudoClasses() {
        XCTAssertEqual(texts("li:nth-child(2n+1)"), ["a", "c", "e"])
        XCTAssertEqual(texts("li:nth-child(odd)"), ["a", "c", "e"])
        XCTAssertEqual(texts("li:nth-child(-n+2)"), ["a", "b"])
        XCTAssertEqual(texts("li:nth-last-child(1)"), ["e"])
        XCTAssertEqual(texts("li:nth-child(-1000000n+3)"), ["c"], "the largest coefficient taken")
        // Int.min as a coefficient (abs of it trapped): an invalid selector, which selects nothing.
        for selector in ["li:nth-child(-9223372036854775808)", "li:nth-child(-9223372036854775808n+1)", "li:nth-child(2n-9223372036854775808)"] {
            XCTAssertTrue(document.select(selector).isEmpty, selector)
        }
        XCTAssertEqual(texts("li:nth-child(1 of .odd)"), ["b"])
        XCTAssertEqual(texts("#main p:last-of-type"), ["trois"])
        XCTAssertEqual(texts("#main p:nth-of-type(2)"), ["two"])
        XCTAssertEqual(names("#main span:empty"), ["span"])
        XCTAssertEqual(names(":root"), ["html"])
        XCTAssertEqual(texts("section h2:only-of-type"), ["t"])
    }

    func testStatesFromAttributesAndDynamicOnesNeverMatch() {
        XCTAssertEqual(names("input:required"), ["input"])
        XCTAssertEqual(names(":checked"), ["input"])
        XCTAssertEqual(names("input:disabled"), ["input"])
        XCTAssertEqual(names("input:placeholder-shown"), ["input"])
        XCTAssertEqual(names("a:link"), ["a"])
        XCTAssertEqual(texts("p:lang(fr)"), ["trois"])
        XCTAssertEqual(texts("li:lang(en)").count, 5, "lang inherits from <html lang=en-GB>")
        for dynamic in ["a:hover", "a:visited", "button:focus", "div:focus-within", "p:target", "a:active"] {
            XCTAssertTrue(document.select(dynamic).isEmpty, dynamic)
        }
    }

    func testPseudoElementsAndSpecificity() throws {
        let before = try XCTUnwrap(SelectorList("p.note::before")?.selectors.first)
        XCTAssertEqual(before.pseudoElement, .before)
        XCTAssertEqual(SelectorList("a:after")?.selectors.first?.pseudoElement, .after, "legacy one-colon form")
        XCTAssertEqual(SelectorList("input::placeholder")?.selectors.first?.pseudoElement, .other)
        XCTAssertNil(SelectorList("::-moz-selection"), "Chromium drops rules with -moz- pseudo-elements")
        XCTAssertNil(SelectorList("p:bogus"), "an unknown pseudo-class invalidates the selector")
        XCTAssertNil(SelectorList("a, p:bogus"), "and the whole list")
        XCTAssertEqual(SelectorList("#a .b c")?.selectors.first?.specificity, 1_001_001)
        XCTAssertEqual(SelectorList(":where(#a) c")?.selectors.first?.specificity, 1)
        XCTAssertEqual(SelectorList(":is(#a, .b) c")?.selectors.first?.specificity, 1_000_001)
        XCTAssertEqual(SelectorList(".a\\:hover")?.selectors.first.map { $0.compounds[0].parts.count }, 1, "escaped colon in a class name")
    }
}
