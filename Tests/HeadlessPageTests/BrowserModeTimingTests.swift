import Foundation
import XCTest
import HeadlessPage
import RelayFetch
import RelayFetchTestSupport

/// Browser mode applies a page's styles as soon as its style sheets have loaded: the images
/// and fonts the cascade asks for do not wait for the images the HTML named.
final class BrowserModeTimingTests: XCTestCase {
    func testCSSImagesStartWhileASlowHTMLImageStillLoads() async throws {
        let origin = try HostileServer(script: "page_origin.py")
        defer { origin.stop() }
        let session = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop()]))
        defer { session.invalidate() }
        let page = try await PageLoader(session: session).load(URL(string: "https://origin.test:\(origin.port)/slow-image-page")!)
        let slow = try XCTUnwrap(page.resources.first { $0.url.path == "/slow.png" })
        let background = try XCTUnwrap(page.resources.first { $0.url.path == "/bg.png" }, "the sheet's background applies to <body>")
        XCTAssertGreaterThan(slow.exchange.duration, 1.5, "the origin holds /slow.png for 2 s")
        XCTAssertLessThan(background.exchange.startedAt, slow.exchange.startedAt.addingTimeInterval(slow.exchange.duration - 1),
                          "the background image started long before the slow image ended")
        let requested = try origin.events().filter { $0.hasPrefix("REQ\t") }.map { String($0.split(separator: "\t")[1]) }
        XCTAssertEqual(Set(requested), ["/slow-image-page", "/bg.css", "/slow.png", "/bg.png", "/favicon.ico"])
    }
}
