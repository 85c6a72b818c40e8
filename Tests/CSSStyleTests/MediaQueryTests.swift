import Foundation
import XCTest
@testable import CSSStyle
import HTMLDOM

/// Media queries and @supports evaluated for a viewport (screen, never print).
final class MediaQueryTests: XCTestCase {
    private let desktop = MediaQuery(viewport: Viewport())
    private let phone = MediaQuery(viewport: Viewport(width: 390, height: 844, devicePixelRatio: 3))

    func testTypesAndLists() {
        for (query, expected) in [("", true), ("all", true), ("screen", true), ("print", false), ("not print", true),
                                  ("only screen", true), ("print, screen", true), ("tv", false), ("bogus", false),
                                  ("not screen", false), ("speech", false)] {
            XCTAssertEqual(desktop.matches(query), expected, query)
        }
    }

    func testRangeFeatures() {
        for (query, expected) in [("(min-width: 1000px)", true), ("(max-width: 600px)", false), ("screen and (min-width: 64em)", true),
                                  ("(width >= 1280px)", true), ("(width > 1280px)", false), ("(600px <= width <= 1300px)", true),
                                  ("(orientation: landscape)", true), ("(min-aspect-ratio: 16/10)", true),
                                  ("(-webkit-min-device-pixel-ratio: 2)", false), ("(min-resolution: 2dppx)", false),
                                  ("(min-resolution: 96dpi)", true), ("(min--moz-device-pixel-ratio: 1)", false),
                                  ("(max-width: 600px), (min-width: 1200px)", true), ("not all and (max-width: 600px)", true)] {
            XCTAssertEqual(desktop.matches(query), expected, query)
        }
        XCTAssertTrue(phone.matches("(max-width: 600px) and (-webkit-min-device-pixel-ratio: 2)"))
        XCTAssertTrue(phone.matches("(orientation: portrait)"))
    }

    func testPreferencesOfADefaultBrowserWithoutJavaScript() {
        for (query, expected) in [("(prefers-color-scheme: dark)", false), ("(prefers-color-scheme: light)", true),
                                  ("(hover: hover)", true), ("(pointer: coarse)", false), ("(scripting: none)", true),
                                  ("(prefers-reduced-motion: reduce)", false), ("(color)", true), ("(monochrome)", false),
                                  ("((min-width: 100px) and (not (hover: none)))", true), ("(unknown-feature: 1)", false)] {
            XCTAssertEqual(desktop.matches(query), expected, query)
        }
    }

    func testSupports() {
        for (condition, expected) in [("(display: grid)", true), ("(display: frobnicate)", false), ("not (display: grid)", false),
                                      ("(-moz-appearance: none)", false), ("(display: flex) and (gap: 1px)", true),
                                      ("(-moz-x: 1) or (display: grid)", true), ("selector(:has(a))", true), ("selector(:bogus)", false),
                                      ("font-format(woff2)", true), ("font-format(embedded-opentype)", false)] {
            XCTAssertEqual(SupportsCondition.matches(condition), expected, condition)
        }
    }

    func testViewportParsing() {
        XCTAssertEqual(Viewport(parsing: "1280x800"), Viewport())
        XCTAssertEqual(Viewport(parsing: "390x844@3"), Viewport(width: 390, height: 844, devicePixelRatio: 3))
        // "" and "@" split into no part at all: indexing the first trapped.
        for bad in ["1280", "x800", "0x10", "10x10@0", "axb", "10x10@99", "", "@", "@2", "10x10@", "x", "10xx10"] { XCTAssertNil(Viewport(parsing: bad), bad) }
    }
}
