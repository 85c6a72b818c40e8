import Foundation
import XCTest
import HeadlessPage
import RelayFetch
import RelayFetchTestSupport
import WebArchive
import CSSStyle

/// The real-site suite: documentation pages from Debian packages (Sphinx with the Read the Docs,
/// Alabaster and Django themes, MkDocs, Doxygen) and the browser-mode sample, some also in a phone's
/// screen (390x844 at ratio 3), through a relay; relayfetch's requests, read from the
/// origin's log, must be exactly what headless Chromium with JavaScript off requested
/// (Benchmarks/fidelity/expected), and its bytes within 5% of Chromium's; the HAR timings of
/// every entry add up.
final class RealSiteFidelityTests: XCTestCase {
    override func setUpWithError() throws { try FidelitySuite.start() }

    func testEveryPageRequestsWhatChromiumRequests() async throws {
        let pages = try FidelitySuite.pages()
        XCTAssertGreaterThanOrEqual(pages.count, 10)
        let allowed = try FidelitySuite.allowedDifferences()
        var hop = ProxyConfiguration.RelayHop(http2RelayEndpoint: FidelitySuite.relayURL)
        hop.relayProtocol = .automatic
        var headerDifferences: [String] = []
        var report = ["page                      requests (relayfetch/chromium)  bytes (relayfetch/chromium)  differences"]
        for page in pages {
            let expected = try FidelitySuite.expected(page.name)
            XCTAssertFalse(expected.isEmpty, "\(page.name): no expectation")
            // A fresh session per page, as Chromium gets a fresh profile per page.
            let session = try Session(configuration: TestServers.configuration(hops: [hop]))
            let offset = FidelitySuite.logSize()
            var options = PageLoader.Options()
            if let viewport = page.viewport { options.viewport = try XCTUnwrap(Viewport(parsing: viewport)) }
            let loaded = try await PageLoader(session: session, options: options).load(page.url)
            session.invalidate()
            let har = try XCTUnwrap(try JSONSerialization.jsonObject(with: HARWriter.data(for: loaded)) as? [String: Any])
            let entries = try XCTUnwrap((har["log"] as? [String: Any])?["entries"] as? [[String: Any]])
            XCTAssertEqual(entries.count, loaded.resources.count + 1)
            for entry in entries { try PageLoadEndToEndTests.assertTimingsAddUp(entry) }
            let requested = try FidelitySuite.requests(since: offset, host: page.url.host!, atLeast: loaded.resources.count + 1)
            XCTAssertEqual(requested.count, loaded.resources.count + 1, "\(page.name): every load is in the origin's log, once")

            let ours = Set(requested.map(\.uri))
            let theirs = Set(expected.map(\.uri))
            let excused = allowed[page.name] ?? []
            let extra = ours.subtracting(theirs).subtracting(excused).sorted()
            let missing = theirs.subtracting(ours).subtracting(excused).sorted()
            XCTAssertEqual(extra, [], "\(page.name): requested, Chromium did not")
            XCTAssertEqual(missing, [], "\(page.name): Chromium requested, relayfetch did not")
            let chromiumHeaders = try FidelitySuite.expectedHeaders(page.name)
            for request in requested {
                let status = expected.first { $0.uri == request.uri }?.status
                if let status { XCTAssertEqual(request.status, status, "\(page.name) \(request.uri)") }
                // The headers a browser varies per destination, as Chromium sent them for this very request.
                guard let theirs = chromiumHeaders[request.uri] else { continue }
                for (index, name) in FidelitySuite.headerNames.enumerated() where request.headers[index] != theirs[index] {
                    headerDifferences.append("\(page.name) \(request.uri) \(name): \(request.headers[index]) (Chromium: \(theirs[index]))")
                }
            }
            let ourBytes = requested.reduce(0) { $0 + $1.bytes }
            let theirBytes = expected.reduce(0) { $0 + $1.bytes }
            XCTAssertLessThanOrEqual(abs(Double(ourBytes - theirBytes)), 0.05 * Double(theirBytes), "\(page.name): bytes within 5%")
            let differences = (extra.map { "+\($0)" } + missing.map { "-\($0)" }).joined(separator: " ")
            report.append(page.name.padding(toLength: 26, withPad: " ", startingAt: 0)
                          + "\(requested.count)/\(expected.count)".padding(toLength: 32, withPad: " ", startingAt: 0)
                          + "\(ourBytes)/\(theirBytes)".padding(toLength: 29, withPad: " ", startingAt: 0)
                          + (differences.isEmpty ? "none" : differences))
        }
        print(report.joined(separator: "\n"))
        XCTAssertEqual(headerDifferences, [], "request headers as Chromium sends them, per destination")
    }
}
