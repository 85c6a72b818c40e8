import Foundation
import XCTest
import HeadlessPage
import RelayFetch
import RelayFetchTestSupport

/// Redirect loops and limits, meta refresh, compressed bodies and timeouts, against the origins.
final class NavigationTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    private func session(timeout: Double = 120) throws -> Session {
        var configuration = TestServers.configuration(hops: [TestServers.relayHop()])
        configuration.requestTimeout = timeout
        return try Session(configuration: configuration)
    }

    func testRedirectLoopsAndLongChainsAreClearErrors() async throws {
        let session = try session()
        defer { session.invalidate() }
        for (path, expected) in [("/loop", "redirect loop at https://origin.test/loop"), ("/hop/1", "too many redirects (more than 20)")] {
            do {
                _ = try await session.data(from: URL(string: "https://origin.test\(path)")!)
                XCTFail("\(path) must not load")
            } catch let error as FetchError {
                XCTAssertEqual(error.description, expected)
            }
        }
    }

    func testMetaRefreshIsFollowed() async throws {
        let session = try session()
        defer { session.invalidate() }
        let page = try await PageLoader(session: session, options: .complete).load(URL(string: "https://origin.test/refresh/index.html")!)
        XCTAssertEqual(page.url.absoluteString, "https://origin.test/refresh/landed.html")
        XCTAssertEqual(page.document.title, "landed")
        XCTAssertEqual(page.resources.map(\.url.path), ["/logo.svg"])
    }

    func testCompressedBodiesAreDecoded() async throws {
        let session = try session()
        defer { session.invalidate() }
        let (body, response) = try await session.data(from: URL(string: "https://origin.test/gzip/text.txt")!)
        XCTAssertEqual(response.value(forHeaderField: "Content-Encoding"), "gzip")
        XCTAssertTrue(String(decoding: body, as: UTF8.self).hasPrefix("compressed text"))
    }

    func testBrotliAndZstdBodiesAreDecoded() async throws {
        let session = try session()
        defer { session.invalidate() }
        for (path, encoding) in [("brotli", "br"), ("zstd", "zstd")] {
            let (body, response) = try await session.data(from: URL(string: "https://origin.test/encoded/\(path).txt")!)
            XCTAssertEqual(response.value(forHeaderField: "Content-Encoding"), encoding)
            XCTAssertEqual(String(decoding: body, as: UTF8.self), "relayfetch decodes this body: brotli and zstd, as browsers and curl do.\n")
        }
    }

    func testPageTimeoutBoundsASlowPage() async throws {
        let session = try session()
        defer { session.invalidate() }
        var options = PageLoader.Options.complete
        options.pageTimeout = 0.5
        let started = Date()
        do {
            _ = try await PageLoader(session: session, options: options).load(URL(string: "https://origin.test/slow/index.html")!)
            XCTFail("the slow page takes over a second")
        } catch let error as FetchError {
            XCTAssertTrue(error.description.contains("timed out"), error.description)
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
    }
}
