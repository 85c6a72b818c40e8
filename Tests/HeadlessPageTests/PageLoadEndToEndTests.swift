import Foundation
import XCTest
import HeadlessPage
import RelayFetch
import WebArchive
import RelayFetchTestSupport

/// The complete sample site (Samples/site/full) through a relay: the origin's log shows every
/// expected path exactly once, nothing else, and every request came from the relay.
final class PageLoadEndToEndTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testSampleSiteLoadsCompletelyThroughTheRelay() async throws {
        let expected = try String(contentsOf: TestServers.repository.appendingPathComponent("Samples/site/full/EXPECTED.txt"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        let before = try TestServers.allLogLines(TestServers.originALog).count
        let hop = TestServers.relayHop(url: TestServers.http2RelayAURL)
        let session = try Session(configuration: TestServers.configuration(hops: [hop]))
        defer { session.invalidate() }
        // A host name no other test uses, so other runs' requests in the shared log do not count.
        let page = try await PageLoader(session: session, options: .complete).load(URL(string: "https://h18.origin.test/full/index.html")!)

        XCTAssertEqual(page.statusCode, 200)
        XCTAssertEqual(page.document.title, "relayfetch complete sample")
        XCTAssertEqual(page.resources.count, expected.count - 1)
        XCTAssertTrue(page.failedResources.isEmpty, "\(page.failedResources.map { "\($0.url) \($0.error ?? "")" })")
        XCTAssertTrue(page.resources.allSatisfy { $0.exchange.relayChain == ["127.0.0.11:4433"] })

        let lines = Array(try TestServers.allLogLines(TestServers.originALog).dropFirst(before))
            .filter { $0[OriginLogField.host.rawValue] == "h18.origin.test" }
        let paths = lines.map { $0[OriginLogField.uri.rawValue] }
        XCTAssertEqual(paths.sorted(), expected.sorted(), "every expected path exactly once, nothing else")
        XCTAssertTrue(lines.allSatisfy { $0[OriginLogField.remoteAddress.rawValue] == "127.0.0.11" })
    }

    func testHARHasAnEntryPerRequestWithItsRelayChain() async throws {
        let session = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop()]))
        defer { session.invalidate() }
        let page = try await PageLoader(session: session, options: .complete).load(URL(string: "https://origin.test/full/index.html")!)
        let har = try XCTUnwrap(try JSONSerialization.jsonObject(with: HARWriter.data(for: page)) as? [String: Any])
        let log = try XCTUnwrap(har["log"] as? [String: Any])
        XCTAssertEqual(log["version"] as? String, "1.2")
        let entries = try XCTUnwrap(log["entries"] as? [[String: Any]])
        XCTAssertEqual(entries.count, page.resources.count + 1)
        for entry in entries {
            XCTAssertEqual(entry["_relayChain"] as? [String], ["127.0.0.11:3129"])
            let response = try XCTUnwrap(entry["response"] as? [String: Any])
            XCTAssertEqual(response["status"] as? Int, 200)
            let timings = try XCTUnwrap(entry["timings"] as? [String: Double])
            XCTAssertEqual(Set(timings.keys), ["blocked", "dns", "connect", "ssl", "send", "wait", "receive"])
            XCTAssertGreaterThanOrEqual(timings["wait"] ?? -1, 0)
            try Self.assertTimingsAddUp(entry)
        }
        XCTAssertTrue(entries.contains { (($0["timings"] as? [String: Double])?["ssl"] ?? -1) > 0 }, "a new connection's TLS is timed")
        // The exchanges that opened a tunnel say when the relay's tunnel was open: inside their connect phase.
        let opened = entries.filter { !(($0["_relayChainTimings"] as? [[String: Any]]) ?? []).isEmpty }
        XCTAssertFalse(opened.isEmpty)
        for entry in opened {
            let hops = try XCTUnwrap(entry["_relayChainTimings"] as? [[String: Any]])
            XCTAssertEqual(hops.compactMap { $0["hop"] as? String }, ["127.0.0.11:3129"])
            let tunnelOpen = try XCTUnwrap(hops[0]["tunnelOpen"] as? Double)
            let connect = try XCTUnwrap((entry["timings"] as? [String: Double])?["connect"])
            XCTAssertGreaterThan(tunnelOpen, 0)
            XCTAssertLessThanOrEqual(tunnelOpen, connect + 1, "the tunnel is part of the connect phase")
        }
    }

    /// HAR 1.2: `time` is the sum of the phases (-1 counting as 0), `ssl` lies inside `connect`,
    /// and a name the relay resolved has no `dns` phase.
    static func assertTimingsAddUp(_ entry: [String: Any], file: StaticString = #filePath, line: UInt = #line) throws {
        let timings = try XCTUnwrap(entry["timings"] as? [String: Double], file: file, line: line)
        let time = try XCTUnwrap(entry["time"] as? Double, file: file, line: line)
        let phases = ["blocked", "dns", "connect", "send", "wait", "receive"].map { max(timings[$0] ?? 0, 0) }
        XCTAssertEqual(time, phases.reduce(0, +), accuracy: 0.0015, "time is the sum of the phases: \(entry["request"] ?? "")", file: file, line: line)
        for name in ["send", "wait", "receive", "blocked"] { XCTAssertGreaterThanOrEqual(timings[name] ?? -1, 0, name, file: file, line: line) }
        if let ssl = timings["ssl"], ssl >= 0 { XCTAssertGreaterThanOrEqual(timings["connect"] ?? -1, ssl, "ssl inside connect", file: file, line: line) }
        if !((entry["_relayChain"] as? [String]) ?? []).isEmpty { XCTAssertEqual(timings["dns"], -1, "the relay resolved the name", file: file, line: line) }
    }

    func testFrameDepthLimitsNestedFrames() async throws {
        let session = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop()]))
        defer { session.invalidate() }
        var options = PageLoader.Options.complete
        options.frameDepth = 0
        let page = try await PageLoader(session: session, options: options).load(URL(string: "https://origin.test/full/index.html")!)
        let loaded = Set(page.resources.map(\.url.path))
        XCTAssertTrue(loaded.contains("/full/frame.html"), "the frame document itself is a subresource")
        XCTAssertFalse(loaded.contains("/full/img/in-frame.svg"), "depth 0: nothing inside frames")
        XCTAssertFalse(loaded.contains("/full/frame2.html"))
    }

    func testPageThatCannotBeReachedFailsClosed() async throws {
        let session = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop(url: TestServers.deadRelayURL)]))
        defer { session.invalidate() }
        do {
            _ = try await PageLoader(session: session, options: .complete).load(URL(string: "https://origin.test/full/index.html")!)
            XCTFail("the relay is down")
        } catch let error as FetchError {
            XCTAssertEqual(error.relayError?.hop.index, 1)
        }
    }
}

/// The preload scanner: subresources named early in a slowly arriving page start before its
/// last byte (Samples/site/slow trickles in at 16 KB/s).
final class StreamingDiscoveryTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testEarlySubresourcesStartWhileTheHTMLIsStillArriving() async throws {
        let session = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop()]))
        defer { session.invalidate() }
        let page = try await PageLoader(session: session, options: .complete).load(URL(string: "https://origin.test/slow/index.html")!)
        let htmlDone = page.main.exchange.startedAt.addingTimeInterval(page.main.exchange.duration)
        XCTAssertGreaterThan(page.main.exchange.duration, 1.0, "the page should trickle in")
        let early = try XCTUnwrap(page.resources.first { $0.url.path == "/slow/early.svg" })
        let sheet = try XCTUnwrap(page.resources.first { $0.url.path == "/slow/early.css" })
        XCTAssertLessThan(early.exchange.startedAt, htmlDone.addingTimeInterval(-0.5), "early.svg must start well before the HTML ends")
        XCTAssertLessThan(sheet.exchange.startedAt.addingTimeInterval(sheet.exchange.duration), htmlDone, "early.css is done before the HTML is")
        XCTAssertNotNil(page.resources.first { $0.url.path == "/slow/late.svg" })
        XCTAssertEqual(page.resources.count, 3)
    }
}
