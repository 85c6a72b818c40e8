import Foundation
import RelayFetch
import RelayFetchTestSupport
import XCTest

/// HTTP/3 to origins over our own QUIC, against Caddy on 127.0.5.1 (its access log tells the
/// protocol and the peer of every request): straight to it, and end to end inside CONNECT-UDP
/// through one and two of the aioquic HTTP/3 relays (relay A sends from 127.0.0.11, relay B from
/// 127.0.0.12, this client from 127.0.0.1). Counts and peers come from the origin's log.
final class HTTP3OriginTests: XCTestCase {
    nonisolated(unsafe) private static var origin: CaddyOrigin?
    private static let client = "127.0.0.1"

    override class func setUp() {
        super.setUp()
        origin = try? CaddyOrigin(host: "127.0.5.1", otherNames: ["h2origin.test"])
    }

    override class func tearDown() {
        origin = nil
        super.tearDown()
    }

    private func caddy() throws -> CaddyOrigin {
        guard let origin = Self.origin else { throw TestServerError(description: "caddy did not start on 127.0.5.1 (run scripts/setup.sh)") }
        return origin
    }

    private static let relayA = TestServers.relayHop(url: TestServers.http2RelayAURL, relayProtocol: .http3)
    private static let relayB = TestServers.relayHop(token: TestServers.relayBToken, url: TestServers.http2RelayBURL, relayProtocol: .http3)

    private func session(hops: [ProxyConfiguration.RelayHop], originProtocol: Session.Configuration.OriginProtocol = .http3) throws -> Session {
        var configuration = TestServers.configuration(hops: hops)
        configuration.originProtocol = originProtocol
        return try Session(configuration: configuration)
    }

    private func about() throws -> Data {
        try Data(contentsOf: TestServers.repository.appendingPathComponent("Samples/site/about.html"))
    }

    func testDirectQUICToAHostNoRelayCovers() async throws {
        let origin = try caddy()
        let marker = TestServers.marker("direct")
        let session = try session(hops: [])
        defer { session.invalidate() }
        let (body, response) = try await session.data(from: URL(string: "\(origin.url)/about.html?\(marker)")!)
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(response.httpVersion, "HTTP/3")
        XCTAssertEqual(body, try about())
        let logged = try origin.requests(containing: marker, expected: 1)
        XCTAssertEqual(logged.map(\.proto), ["HTTP/3.0"])
        XCTAssertEqual(logged.map(\.remoteIP), [Self.client])
    }

    func testThroughOneHTTP3RelayTheOriginSeesHTTP3FromTheRelay() async throws {
        let origin = try caddy()
        let marker = TestServers.marker("one")
        let session = try session(hops: [Self.relayA])
        defer { session.invalidate() }
        let (body, response) = try await session.data(from: URL(string: "\(origin.url)/about.html?\(marker)")!)
        XCTAssertEqual(response.httpVersion, "HTTP/3")
        XCTAssertEqual(response.relayHops, ["127.0.0.11:4433"])
        XCTAssertEqual(body, try about())
        let logged = try origin.requests(containing: marker, expected: 1)
        XCTAssertEqual(logged.map(\.proto), ["HTTP/3.0"])
        XCTAssertEqual(logged.map(\.remoteIP), ["127.0.0.11"], "the origin must see the relay, never the client")
        let names = Set(logged.first?.headers.keys.map { $0.lowercased() } ?? [])
        XCTAssertFalse(names.isEmpty, "the log records the request's header fields")
        XCTAssertFalse(names.contains("proxy-authorization"), "the hop's header went to the origin: \(names)")
    }

    func testThroughTwoHTTP3RelaysTheOriginSeesTheLastRelay() async throws {
        let origin = try caddy()
        let marker = TestServers.marker("two")
        let session = try session(hops: [Self.relayA, Self.relayB])
        defer { session.invalidate() }
        let (body, response) = try await session.data(from: URL(string: "\(origin.url)/about.html?\(marker)")!)
        XCTAssertEqual(response.httpVersion, "HTTP/3")
        XCTAssertEqual(body, try about())
        let logged = try origin.requests(containing: marker, expected: 1)
        XCTAssertEqual(logged.map(\.proto), ["HTTP/3.0"])
        XCTAssertEqual(logged.map(\.remoteIP), ["127.0.0.12"])
    }

    /// The origin's name goes to the last relay in the CONNECT-UDP path and is resolved there:
    /// this machine cannot resolve it at all, so the fetch works only if nothing here tried.
    func testTheLastRelayResolvesTheOriginsName() async throws {
        let origin = try caddy()
        let relay = try HTTP3RelayInstance(host: "127.0.5.2", hosts: [origin.name: origin.host])
        let marker = TestServers.marker("name")
        let hop = TestServers.relayHop(token: TestServers.relayBToken, url: URL(string: "https://\(relay.host):\(relay.port)")!, relayProtocol: .http3)
        let session = try session(hops: [hop])
        defer { session.invalidate() }
        let (body, response) = try await session.data(from: URL(string: "https://\(origin.name):\(origin.port)/about.html?\(marker)")!)
        XCTAssertEqual(response.httpVersion, "HTTP/3")
        XCTAssertEqual(body, try about())
        let paths = try relay.lines().map { $0.count > 5 ? $0[5] : "" }
        XCTAssertTrue(paths.contains("/.well-known/masque/udp/\(origin.name)/\(origin.port)/"), "the relay got the name: \(paths)")
        let logged = try origin.requests(containing: marker, expected: 1)
        XCTAssertEqual(logged.map(\.proto), ["HTTP/3.0"])
        XCTAssertEqual(logged.map(\.remoteIP), [relay.host])
    }

    func testARelayThatIsDownFailsClosedWithoutDirectQUIC() async throws {
        let origin = try caddy()
        let marker = TestServers.marker("down")
        let session = try session(hops: [TestServers.relayHop(url: TestServers.deadRelayURL, relayProtocol: .http3)])
        defer { session.invalidate() }
        do {
            _ = try await session.data(from: URL(string: "\(origin.url)/about.html?\(marker)")!)
            XCTFail("a fetch through a relay that is down succeeded")
        } catch let error as FetchError {
            XCTAssertEqual(error.relayError?.hop.index, 1, "\(error)")
        }
        XCTAssertEqual(try origin.requests(containing: marker, settle: 1).count, 0, "the origin was reached around the relay")
    }

    /// Many requests of one session to one origin share one QUIC connection (one CONNECT-UDP
    /// flow: one relay port in the origin's log); another session opens its own.
    func testRequestsMultiplexOnOneConnectionPerSessionAndSessionsDoNotShare() async throws {
        let origin = try caddy()
        let marker = TestServers.marker("mux")
        let first = try session(hops: [Self.relayA]), second = try session(hops: [Self.relayA])
        defer { first.invalidate(); second.invalidate() }
        let url = URL(string: "\(origin.url)/about.html?\(marker)")!
        _ = try await first.data(from: url)  // the connection is up before the burst
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<6 { group.addTask { _ = try await first.data(from: url) } }
            try await group.waitForAll()
        }
        _ = try await second.data(from: url)
        _ = try await second.data(from: url)
        let logged = try origin.requests(containing: marker, expected: 9)
        XCTAssertEqual(logged.count, 9)
        XCTAssertEqual(Set(logged.map(\.proto)), ["HTTP/3.0"])
        XCTAssertEqual(Set(logged.map(\.remoteIP)), ["127.0.0.11"])
        let ports = logged.map(\.remotePort)
        XCTAssertEqual(Set(ports).count, 2, "one QUIC connection per session: \(ports)")
        XCTAssertEqual(Set(ports.prefix(7)).count, 1, "the first session's seven requests on one connection: \(ports)")
    }

    /// The pipeline above the route works as on TCP: a POST's body arrives, a redirect is
    /// followed, the cookie it set goes back, and a streamed body arrives whole.
    func testPostRedirectCookiesAndStreamingWorkOverHTTP3() async throws {
        let origin = try caddy()
        let marker = TestServers.marker("pipe")
        let session = try session(hops: [Self.relayA])
        defer { session.invalidate() }
        let post = HTTPRequest(url: URL(string: "\(origin.url)/h3/echo?\(marker)")!, method: "POST",
                               headerFields: [("Content-Type", "text/plain")], body: Data("posted-over-h3".utf8))
        let (echo, _) = try await session.data(for: post)
        XCTAssertEqual(String(decoding: echo, as: UTF8.self), "POST posted-over-h3 ")
        let (page, redirected) = try await session.data(from: URL(string: "\(origin.url)/h3/cookie?\(marker)")!)
        XCTAssertEqual(redirected.redirectCount, 1)
        XCTAssertEqual(page, try about())
        let (withCookie, _) = try await session.data(from: URL(string: "\(origin.url)/h3/echo?\(marker)-2")!)
        XCTAssertEqual(String(decoding: withCookie, as: UTF8.self), "GET  h3c=yes")
        let (body, response) = try await session.bytes(for: HTTPRequest(url: URL(string: "\(origin.url)/about.html?\(marker)-3")!))
        XCTAssertEqual(response.httpVersion, "HTTP/3")
        let streamed = try await body.collect()
        XCTAssertEqual(streamed, try about())
        // The redirect's target (/about.html) carries no marker: four lines.
        let logged = try origin.requests(containing: marker, expected: 4)
        XCTAssertEqual(logged.map(\.method), ["POST", "GET", "GET", "GET"])
        XCTAssertEqual(Set(logged.map(\.proto)), ["HTTP/3.0"])
    }

    /// auto: TCP until the origin announced h3 (Alt-Svc) in this session, HTTP/3 after; a new
    /// session starts over on TCP (nothing is remembered beyond a session).
    func testAutoUsesHTTP3OnlyAfterTheOriginAnnouncedItInTheSession() async throws {
        let origin = try caddy()
        let marker = TestServers.marker("auto")
        let url = URL(string: "\(origin.url)/about.html?\(marker)")!
        let first = try session(hops: [], originProtocol: .automatic)
        _ = try await first.data(from: url)
        let (_, second) = try await first.data(from: url)
        XCTAssertEqual(second.httpVersion, "HTTP/3")
        first.invalidate()
        let fresh = try session(hops: [], originProtocol: .automatic)
        defer { fresh.invalidate() }
        _ = try await fresh.data(from: url)
        let logged = try origin.requests(containing: marker, expected: 3)
        XCTAssertEqual(logged.map(\.proto), ["HTTP/2.0", "HTTP/3.0", "HTTP/2.0"])
    }

    /// Item 4: each session's QUIC connection starts a fresh TLS session; nothing of an earlier
    /// session (no ticket, no 0-RTT) is offered, as Caddy's log of the second session shows.
    func testNoTLSSessionIsResumedAcrossSessions() async throws {
        let origin = try caddy()
        let marker = TestServers.marker("ticket")
        let url = URL(string: "\(origin.url)/about.html?\(marker)")!
        for _ in 0..<2 {
            let session = try session(hops: [])
            _ = try await session.data(from: url)
            session.invalidate()
        }
        let logged = try origin.requests(containing: marker, expected: 2)
        XCTAssertEqual(logged.map(\.proto), ["HTTP/3.0", "HTTP/3.0"])
        XCTAssertEqual(Set(logged.map(\.remotePort)).count, 2, "two sessions, two connections")
        XCTAssertEqual(logged.map(\.resumed), [false, false])
    }

    /// The body's limit holds over HTTP/3 as over libcurl: a declared length over it fails
    /// before the body, and the error says so.
    func testTheResponseSizeLimitHoldsOverHTTP3() async throws {
        let origin = try caddy()
        let session = try session(hops: [Self.relayA])
        defer { session.invalidate() }
        var request = HTTPRequest(url: URL(string: "\(origin.url)/about.html?\(TestServers.marker("limit"))")!)
        request.maximumBodySize = 100
        do {
            _ = try await session.data(for: request)
            XCTFail("a 317-byte body passed a 100-byte limit")
        } catch let error as FetchError {
            guard case .responseTooLarge(let limit) = error.detail else { return XCTFail("\(error)") }
            XCTAssertEqual(limit, 100)
        }
    }

    /// auto, QUIC failing outright (the announced port refuses): the request goes over TCP at
    /// once, and the origin stays on TCP for the rest of the session.
    func testAutoFallsBackToTCPWhenTheOriginsQUICFails() async throws {
        let origin = try caddy()
        let marker = TestServers.marker("fail")
        let session = try session(hops: [], originProtocol: .automatic)
        defer { session.invalidate() }
        _ = try await session.data(from: URL(string: "\(origin.url)/h3/badalt?\(marker)")!)
        let started = Date()
        let (body, response) = try await session.data(from: URL(string: "\(origin.url)/about.html?\(marker)")!)
        XCTAssertEqual(body, try about())
        XCTAssertEqual(response.httpVersion, "HTTP/2")
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
        let (_, third) = try await session.data(from: URL(string: "\(origin.url)/about.html?\(marker)")!)
        XCTAssertEqual(third.httpVersion, "HTTP/2")
        XCTAssertEqual(try origin.requests(containing: marker, expected: 3).map(\.proto), ["HTTP/2.0", "HTTP/2.0", "HTTP/2.0"])
    }

    /// auto through a relay, QUIC to the origin not up within the head start: the request goes
    /// through the relay over TCP, and the origin sees it once, from the relay.
    func testAutoThroughARelayGoesOverTCPWhenQUICIsNotUp() async throws {
        let origin = try caddy()
        let marker = TestServers.marker("slow")
        let session = try session(hops: [Self.relayA], originProtocol: .automatic)
        defer { session.invalidate() }
        _ = try await session.data(from: URL(string: "\(origin.url)/h3/badalt?\(marker)")!)
        let (body, response) = try await session.data(from: URL(string: "\(origin.url)/about.html?\(marker)")!)
        XCTAssertEqual(body, try about())
        XCTAssertEqual(response.httpVersion, "HTTP/2")
        let logged = try origin.requests(containing: marker, expected: 2)
        XCTAssertEqual(logged.map(\.proto), ["HTTP/2.0", "HTTP/2.0"])
        XCTAssertEqual(Set(logged.map(\.remoteIP)), ["127.0.0.11"])
    }

    /// A streamed upload goes over HTTP/3 once the origin is known to offer it, under auto as
    /// when forced (it streams as on TCP: `HTTP3OriginUploadTests`), and arrives intact.
    func testStreamedUploadsGoOverHTTP3UnderAutoAndWhenForced() async throws {
        let origin = try caddy()
        let marker = TestServers.marker("upload")
        let url = URL(string: "\(origin.url)/h3/echo?\(marker)")!
        for originProtocol in [Session.Configuration.OriginProtocol.automatic, .http3] {
            let session = try session(hops: [Self.relayA], originProtocol: originProtocol)
            defer { session.invalidate() }
            _ = try await session.data(from: URL(string: "\(origin.url)/about.html?\(marker)-announce")!)
            var upload = HTTPRequest(url: url, method: "POST")
            upload.bodyStream = try RequestBodyStream([.data(Data("streamed-".utf8)), .data(Data("body".utf8))])
            let (echo, response) = try await session.data(for: upload)
            XCTAssertEqual(String(decoding: echo, as: UTF8.self), "POST streamed-body ")
            XCTAssertEqual(response.httpVersion, "HTTP/3")
        }
        let posts = try origin.requests(containing: marker, expected: 4).filter { $0.method == "POST" }
        XCTAssertEqual(posts.map(\.proto), ["HTTP/3.0", "HTTP/3.0"])
    }

    /// Finished HTTP/3 exchanges leave nothing behind: the heap after 400 more requests on one
    /// session's connection is within a few hundred KiB of where it was (each exchange's reader,
    /// stream and buffers would otherwise stay, several KiB each).
    func testFinishedExchangesAreFreed() async throws {
        let origin = try caddy()
        let session = try session(hops: [])
        defer { session.invalidate() }
        let url = URL(string: "\(origin.url)/about.html?\(TestServers.marker("heap"))")!
        for _ in 0..<40 { _ = try await session.data(from: url) }
        let before = ProcessMemory.heapBytes
        for _ in 0..<400 { _ = try await session.data(from: url) }
        let growth = ProcessMemory.heapBytes - before
        XCTAssertLessThan(growth, 400 << 10, "the heap grew \(growth >> 10) KiB over 400 exchanges")
    }

    /// A reader that gives a body up cancels only its stream: the next request goes on the same
    /// QUIC connection; a Range request (what -C sends) gets its 206 and the bytes asked for.
    func testACancelledBodyLeavesTheConnectionUsableAndRangesWork() async throws {
        let origin = try caddy()
        let marker = TestServers.marker("cancel")
        let session = try session(hops: [Self.relayA])
        defer { session.invalidate() }
        let (body, _) = try await session.bytes(for: HTTPRequest(url: URL(string: "\(origin.url)/about.html?\(marker)")!))
        body.cancel()
        var range = HTTPRequest(url: URL(string: "\(origin.url)/about.html?\(marker)-range")!)
        range.headerFields = [("Range", "bytes=10-19")]
        let (part, response) = try await session.data(for: range)
        XCTAssertEqual(response.statusCode, 206)
        XCTAssertEqual(part, try about()[10..<20])
        let logged = try origin.requests(containing: marker, expected: 2)
        XCTAssertEqual(logged.map(\.proto), ["HTTP/3.0", "HTTP/3.0"])
        XCTAssertEqual(Set(logged.map(\.remotePort)).count, 1, "one QUIC connection for both")
    }

    /// auto, a host reached directly: its HTTPS record from the encrypted resolver (the test
    /// DoH server's zone) offering h3 is announcement enough for the first request; a name whose
    /// record offers h2 only stays on TCP. Both names lead to the same Caddy.
    func testAutoUsesHTTP3WhenTheHostsHTTPSRecordOffersIt() async throws {
        let origin = try caddy()
        _ = try EncryptedDNSServer.shared()
        let marker = TestServers.marker("svcb")
        var configuration = TestServers.configuration(hops: [])
        configuration.originProtocol = .automatic
        let context = PrivacyContext()
        context.requireEncryptedNameResolution(true, fallbackResolver: .https(EncryptedDNSServer.dohURL, serverAddresses: [EncryptedDNSServer.address]))
        configuration.privacyContext = context
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        let (body, offered) = try await session.data(from: URL(string: "https://h3origin.test:\(origin.port)/about.html?\(marker)")!)
        XCTAssertEqual(body, try about())
        XCTAssertEqual(offered.httpVersion, "HTTP/3")
        let (_, notOffered) = try await session.data(from: URL(string: "https://h2origin.test:\(origin.port)/about.html?\(marker)-h2")!)
        XCTAssertEqual(notOffered.httpVersion, "HTTP/2")
        XCTAssertEqual(try origin.requests(containing: marker, expected: 2).map(\.proto), ["HTTP/3.0", "HTTP/2.0"])
    }

    /// tcp never speaks QUIC, even to an origin that announced h3.
    func testTCPNeverUsesQUIC() async throws {
        let origin = try caddy()
        let marker = TestServers.marker("tcp")
        let session = try session(hops: [], originProtocol: .tcp)
        defer { session.invalidate() }
        let url = URL(string: "\(origin.url)/about.html?\(marker)")!
        _ = try await session.data(from: url)
        let (_, response) = try await session.data(from: url)
        XCTAssertEqual(response.httpVersion, "HTTP/2")
        XCTAssertEqual(try origin.requests(containing: marker, expected: 2).map(\.proto), ["HTTP/2.0", "HTTP/2.0"])
    }
}
