import Foundation
import XCTest
import HeadlessPage
import RelayFetch
import RelayFetchTestSupport

/// A 50 MB page (just within the session's 50 MiB response limit) from the hostile origin: the
/// preload scanner only walks what each chunk added, so the load is linear in the page's size,
/// and the images named near its end are found.
final class LargePageTests: XCTestCase {
    private var origin: HostileServer?

    // Stopped here, on the main thread: Process.waitUntilExit can spin on a task's thread.
    override func tearDown() { origin?.stop() }

    func testFiftyMegabytePageLoadsWithItsLastSubresources() async throws {
        let origin = try HostileServer(script: "page_origin.py")
        self.origin = origin
        let session = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop()]))
        defer { session.invalidate() }
        var options = PageLoader.Options.complete
        options.pageTimeout = 300  // a sanity bound for a slow machine, not a timing assertion
        let started = Date()
        let page = try await PageLoader(session: session, options: options).load(URL(string: "https://origin.test:\(origin.port)/large?mb=50")!)
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(page.statusCode, 200)
        XCTAssertEqual(page.main.size, 50_000_000)
        let paths = Set(page.resources.map(\.url.path))
        XCTAssertTrue(paths.contains("/tail/last.png"), "the last element of the page was scanned")
        XCTAssertEqual(paths, Set((1...49).map { "/large-img/\($0).png" } + ["/tail/last.png"]))
        XCTAssertTrue(page.failedResources.isEmpty)
        XCTAssertTrue(page.limitsReached.isEmpty)
        print("50 MB page loaded in \(String(format: "%.2f", elapsed)) s")
    }
}
