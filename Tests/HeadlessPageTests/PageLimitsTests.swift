import Foundation
import XCTest
import HeadlessPage
import RelayFetch
import RelayFetchTestSupport

/// A hostile origin (Samples/servers/hostile/page_origin.py, through relay A) generates pages
/// with no end to their work; each load stops at its limit, says which, and never crashes.
final class PageLimitsTests: XCTestCase {
    private var origin: HostileServer!
    private var session: Session!

    override func setUpWithError() throws {
        origin = try HostileServer(script: "page_origin.py")
        session = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop()]))
    }

    override func tearDown() {
        session?.invalidate()
        origin?.stop()
    }

    private func load(_ path: String, _ configure: (inout PageLoader.Options) -> Void = { _ in }) async throws -> Page {
        var options = PageLoader.Options.complete
        configure(&options)
        return try await PageLoader(session: session, options: options).load(URL(string: "https://origin.test:\(origin.port)\(path)")!)
    }

    /// Paths the origin served, from its own log.
    private func requested() throws -> [String] {
        try origin.events().filter { $0.hasPrefix("REQ\t") }.map { String($0.split(separator: "\t")[1]) }
    }

    /// 100,000 distinct images: the load stops at the subresource limit, and libcurl queues the
    /// requests on at most six connections (relay tunnels) to the origin at a time: the origin
    /// logs how many were open, the relay's own log counts the CONNECTs.
    func testManyImagesStopAtTheLimitOnAtMostSixTunnelsAtATime() async throws {
        let target = "origin.test:\(origin.port)"
        // The shared relay log may hold older tunnels to a port number an earlier origin had.
        let earlier = try TestServers.logLines(TestServers.relayLog, containing: target).count
        let page = try await load("/many?n=100000") { $0.maximumSubresources = 400 }
        XCTAssertEqual(page.resources.count, 400)
        XCTAssertEqual(page.limitsReached, [.subresources(400)])
        XCTAssertEqual(try requested().filter { $0.hasPrefix("/img/") }.count, 400, "the origin saw exactly the limit")
        session.invalidate()

        let connections = try origin.events().filter { $0.hasPrefix("CONN\t") }.map { $0.split(separator: "\t") }
        let open = connections.compactMap { Int($0[2]) }
        XCTAssertEqual(open.count, connections.count)
        XCTAssertLessThanOrEqual(open.max() ?? 99, Session.Configuration.ephemeral.maximumConnectionsPerHost,
                                 "never more than six tunnels to one origin at once")
        // Keep-alive connections (and so tunnels) are reused: not one per image.
        XCTAssertLessThanOrEqual(connections.count, 2 * Session.Configuration.ephemeral.maximumConnectionsPerHost,
                                 "401 requests took \(connections.count) connections")
        _ = try TestServers.waitForLogLines(TestServers.relayLog, containing: target, skipping: earlier + connections.count - 1)
        let connects = try TestServers.logLines(TestServers.relayLog, containing: target).dropFirst(earlier)
            .filter { $0.count > 3 && $0[2] == "CONNECT" && $0[3] == target }
        XCTAssertEqual(connects.count, connections.count, "the relay carried one CONNECT per origin connection")
    }

    /// Over an HTTP/2 origin (nginx) the whole sample page shares one tunnel: the relay logs a
    /// single CONNECT for the name only this test uses.
    func testHTTP2OriginPageUsesOneTunnel() async throws {
        let target = "h17.origin.test:443"
        let before = try TestServers.logLines(TestServers.relayLog, containing: target).count
        let page = try await PageLoader(session: session, options: .complete).load(URL(string: "https://h17.origin.test/full/index.html")!)
        XCTAssertGreaterThan(page.resources.count, 30)
        XCTAssertTrue(page.failedResources.isEmpty)
        session.invalidate()
        let connects = try TestServers.waitForLogLines(TestServers.relayLog, containing: target, skipping: before)
            .filter { $0.count > 3 && $0[2] == "CONNECT" && $0[3] == target }
        try await Task.sleep(nanoseconds: 500_000_000)  // any further tunnel closes with the session too
        XCTAssertEqual(connects.count, 1)
        XCTAssertEqual(try TestServers.logLines(TestServers.relayLog, containing: target).count - before, 1)
    }

    /// A style sheet of a million distinct url()s (about 38 MB): scanned up to the style text
    /// limit (8 MiB) and the subresource limit only.
    func testStyleSheetWithAMillionURLsStopsAtTheLimit() async throws {
        let page = try await load("/css-page?n=1000000") { $0.maximumSubresources = 150 }
        XCTAssertEqual(page.resources.count, 150)
        XCTAssertTrue(page.resources.contains { $0.url.path == "/big.css" && $0.statusCode == 200 })
        XCTAssertEqual(page.limitsReached, [.styleBytes(8 << 20), .subresources(150)])
        XCTAssertEqual(try requested().filter { $0.hasPrefix("/u/") }.count, 149)
    }

    /// `@import` chains end at `importDepth` (a sheet the page names is depth 0).
    func testEndlessImportChainStopsAtTheImportDepth() async throws {
        let page = try await load("/import-page") { $0.importDepth = 5 }
        XCTAssertEqual(Set(page.resources.map(\.url.path)), Set((0...5).map { "/import/\($0).css" }))
        XCTAssertEqual(page.limitsReached, [.importDepth(5)])
        XCTAssertEqual(Set(try requested().filter { $0.hasPrefix("/import/") }), Set((0...5).map { "/import/\($0).css" }))
    }

    /// Endless nested frames: a depth beyond the maximum is clamped to it (10), and the load ends.
    func testEndlessFrameChainStopsAtTheMaximumFrameDepth() async throws {
        let page = try await load("/frame/0.html") { $0.frameDepth = 1_000_000 }
        let frames = Set(page.resources.map(\.url.path).filter { $0.hasPrefix("/frame/") })
        XCTAssertEqual(frames, Set((1...11).map { "/frame/\($0).html" }))
        XCTAssertEqual(page.limitsReached, [.frameDepth(PageLoader.Options.frameDepthRange.upperBound)])
        XCTAssertFalse(try requested().contains("/frame/12.html"))
    }

    /// Forty 128 KiB images against a 2 MiB page budget, requested at once: the transfers share
    /// the budget as bytes arrive, so the page never holds more than it.
    func testPageBytesNeverExceedTheBudget() async throws {
        let limit = 2 << 20
        let page = try await load("/big-images?n=40&kb=128") { $0.maximumPageBytes = limit }
        XCTAssertEqual(page.limitsReached, [.bytes(limit)])
        XCTAssertLessThanOrEqual(page.totalBytes, limit)
        let complete = page.resources.filter { $0.error == nil && $0.size == 128 << 10 }.count
        XCTAssertGreaterThan(complete, 3, "it loaded what fit")
        XCTAssertLessThan(complete, 16)
        XCTAssertFalse(page.resources.filter { $0.error?.contains("maximumPageBytes") == true }.isEmpty, "the rest say why")
    }
}
