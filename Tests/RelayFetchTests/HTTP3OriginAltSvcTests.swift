import Foundation
import RelayFetch
import RelayFetchTestSupport
import XCTest

/// What `--origin-protocol h3` does with an origin's Alt-Svc alternative: one on a port that is
/// no port (0) is ignored, as RFC 7838 asks of an invalid alternative, and QUIC goes to the
/// origin's own port; one on a port where nothing answers fails that request with an error naming
/// the origin and its alternative, and is forgotten, so the next request tries the origin's own
/// port; through relays it never goes direct. Against Caddy on 127.0.24.3 (its log tells
/// protocol and peer).
final class HTTP3OriginAltSvcTests: XCTestCase {
    nonisolated(unsafe) private static var origin: CaddyOrigin?

    override class func setUp() {
        super.setUp()
        origin = try? CaddyOrigin(host: "127.0.24.3", port: 8631)
    }

    override class func tearDown() {
        origin = nil
        super.tearDown()
    }

    private func session(hops: [ProxyConfiguration.RelayHop] = []) throws -> Session {
        var configuration = TestServers.configuration(hops: hops, connectTimeout: 3)
        configuration.originProtocol = .http3
        return try Session(configuration: configuration)
    }

    func testAnAlternativeOnPortZeroIsIgnored() async throws {
        let origin = try XCTUnwrap(Self.origin, "caddy did not start on 127.0.24.3 (run scripts/setup.sh)")
        let session = try session()
        defer { session.invalidate() }
        let marker = TestServers.marker("zero")
        let (_, announcing) = try await session.data(from: URL(string: "\(origin.url)/h3/zeroalt?\(marker)-0")!)
        XCTAssertEqual(announcing.value(forHeaderField: "Alt-Svc"), "h3=\":0\"")
        let (_, response) = try await session.data(from: URL(string: "\(origin.url)/about.html?\(marker)-1")!)
        XCTAssertEqual(response.httpVersion, "HTTP/3")
        XCTAssertEqual(try origin.requests(containing: "\(marker)-1", expected: 1).map(\.proto), ["HTTP/3.0"])
    }

    func testAnAlternativeWhereNothingAnswersFailsNamingTheOriginAndIsForgotten() async throws {
        let origin = try XCTUnwrap(Self.origin, "caddy did not start on 127.0.24.3 (run scripts/setup.sh)")
        let session = try session()
        defer { session.invalidate() }
        let marker = TestServers.marker("nowhere")
        _ = try await session.data(from: URL(string: "\(origin.url)/h3/badalt?\(marker)-0")!)
        do {
            _ = try await session.data(from: URL(string: "\(origin.url)/about.html?\(marker)-1")!)
            XCTFail("the request to the alternative on port 9 went through")
        } catch {
            let text = "\(error)"
            XCTAssertTrue(text.contains("127.0.24.3:8631"), "the error names the origin: \(text)")
            XCTAssertTrue(text.contains("Alt-Svc") && text.contains(":9"), "the error names its alternative: \(text)")
        }
        let (_, response) = try await session.data(from: URL(string: "\(origin.url)/about.html?\(marker)-2")!)
        XCTAssertEqual(response.httpVersion, "HTTP/3", "the next request goes to the origin's own port")
        XCTAssertEqual(try origin.requests(containing: "\(marker)-1", settle: 0.5).count, 0)
        XCTAssertEqual(try origin.requests(containing: "\(marker)-2", expected: 1).map(\.proto), ["HTTP/3.0"])
    }

    func testThroughARelayAnAlternativeWhereNothingAnswersNeverGoesDirect() async throws {
        let origin = try XCTUnwrap(Self.origin, "caddy did not start on 127.0.24.3 (run scripts/setup.sh)")
        let session = try session(hops: [TestServers.relayHop(url: TestServers.http2RelayAURL, relayProtocol: .http3)])
        defer { session.invalidate() }
        let marker = TestServers.marker("relayed")
        _ = try await session.data(from: URL(string: "\(origin.url)/h3/badalt?\(marker)-0")!)
        do {
            _ = try await session.data(from: URL(string: "\(origin.url)/about.html?\(marker)-1")!)
            XCTFail("the request to the alternative on port 9 went through")
        } catch {
            XCTAssertTrue("\(error)".contains("127.0.24.3:8631"), "the error names the origin: \(error)")
        }
        let logged = try origin.requests(containing: marker, settle: 0.5)
        XCTAssertEqual(logged.map(\.uri).filter { $0.contains("\(marker)-1") }, [])
        XCTAssertEqual(Set(logged.map(\.remoteIP)), ["127.0.0.11"], "every request came from the relay, none direct")
    }
}
