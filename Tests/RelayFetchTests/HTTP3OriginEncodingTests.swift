import Foundation
import RelayFetch
import RelayFetchTestSupport
import XCTest

/// Over HTTP/3 a request asks for the encodings a TCP request asks for (libcurl's
/// CURLOPT_ACCEPT_ENCODING "": gzip, deflate, br) and the body comes back decoded, with the
/// origin's Content-Encoding kept in the head, as libcurl does. Against Caddy on 127.0.24.2,
/// which gzips on the fly and serves a `.br` file as it is (its log records what was asked for).
final class HTTP3OriginEncodingTests: XCTestCase {
    nonisolated(unsafe) private static var origin: CaddyOrigin?

    override class func setUp() {
        super.setUp()
        origin = try? CaddyOrigin(host: "127.0.24.2", port: 8621)
    }

    override class func tearDown() {
        origin = nil
        super.tearDown()
    }

    /// Text that compresses well, longer than Caddy's minimum for encoding (512 bytes).
    private static let page = Data((0..<400).map { "line \($0) of a page served compressed\n" }.joined().utf8)

    func testHTTP3AsksForEncodingsAndDecodesGzipAndBrotli() async throws {
        let origin = try XCTUnwrap(Self.origin, "caddy did not start on 127.0.24.2 (run scripts/setup.sh)")
        try Self.page.write(to: origin.encodedFolder.appendingPathComponent("plain.txt"))
        try Self.page.write(to: origin.encodedFolder.appendingPathComponent("page.html"))
        let compressed = try TestServers.run(["/usr/bin/brotli", "-f", "-o", origin.encodedFolder.appendingPathComponent("page.html.br").path,
                                              origin.encodedFolder.appendingPathComponent("page.html").path])
        XCTAssertEqual(compressed.status, 0, compressed.output)
        var configuration = TestServers.configuration(hops: [])
        configuration.originProtocol = .http3
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        let marker = TestServers.marker("encoded")
        for (name, encoding) in [("plain.txt", "gzip"), ("page.html", "br")] {
            let (body, response) = try await session.data(from: URL(string: "\(origin.url)/h3/encoded/\(name)?\(marker)")!)
            XCTAssertEqual(response.httpVersion, "HTTP/3")
            XCTAssertEqual(response.value(forHeaderField: "Content-Encoding"), encoding, "\(name): the origin sent it \(encoding)")
            XCTAssertEqual(body, Self.page, "\(name): the body comes back decoded")
        }
        let logged = try origin.requests(containing: marker, expected: 2)
        XCTAssertEqual(logged.map(\.proto), ["HTTP/3.0", "HTTP/3.0"])
        for request in logged {
            let asked = request.headers.first { $0.key.lowercased() == "accept-encoding" }?.value.joined(separator: ",") ?? ""
            for encoding in ["gzip", "deflate", "br"] {
                XCTAssertTrue(asked.contains(encoding), "\(request.uri) asked for \"\(asked)\", without \(encoding)")
            }
        }
    }

    /// A Range request asks for the identity form over HTTP/3 too (offsets count its bytes).
    func testARangeRequestAsksForNoEncoding() async throws {
        let origin = try XCTUnwrap(Self.origin, "caddy did not start on 127.0.24.2 (run scripts/setup.sh)")
        try Self.page.write(to: origin.encodedFolder.appendingPathComponent("range.txt"))
        var configuration = TestServers.configuration(hops: [])
        configuration.originProtocol = .http3
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        let marker = TestServers.marker("range")
        let request = HTTPRequest(url: URL(string: "\(origin.url)/h3/encoded/range.txt?\(marker)")!, headerFields: [("Range", "bytes=0-99")])
        let (body, response) = try await session.data(for: request)
        XCTAssertEqual(response.statusCode, 206)
        XCTAssertEqual(body, Self.page.prefix(100))
        let logged = try origin.requests(containing: marker, expected: 1)
        XCTAssertEqual(logged.count, 1)
        XCTAssertFalse(logged.first?.headers.keys.contains { $0.lowercased() == "accept-encoding" } ?? true)
    }
}
