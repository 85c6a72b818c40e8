import Foundation
import RelayFetch
import RelayFetchTestSupport
import XCTest

/// How an HTTP/3 origin's failures reach the caller: a reset stream, GOAWAY, a stall (idle
/// timeout) and the total time limit, each a `FetchError` naming the origin and the hop it came
/// through. The origin is our own aioquic server (`Samples/servers/hostile/h3_origin.py`) on
/// 127.0.5.4 with the test origin certificate, reached as origin.test through a relay of the
/// test's own on 127.0.5.2, which alone resolves that name (to 127.0.5.4).
final class HTTP3OriginFailureTests: XCTestCase {
    private var origin: HostileServer!
    private var relay: HTTP3RelayInstance!

    override func setUpWithError() throws {
        origin = try HostileServer(script: "h3_origin.py", host: "127.0.5.4")
        relay = try HTTP3RelayInstance(host: "127.0.5.2", hosts: ["origin.test": "127.0.5.4"])
    }

    override func tearDown() {
        origin?.stop()
        relay?.stop()
    }

    private func fetch(_ path: String, idleTimeout: Double = 30, requestTimeout: Double = 20) async -> Error? {
        let hop = TestServers.relayHop(token: TestServers.relayBToken, url: URL(string: "https://\(relay.host):\(relay.port)")!, relayProtocol: .http3)
        var configuration = TestServers.configuration(hops: [hop])
        configuration.originProtocol = .http3
        configuration.idleTimeout = idleTimeout
        configuration.requestTimeout = requestTimeout
        do {
            let session = try Session(configuration: configuration)
            defer { session.invalidate() }
            _ = try await session.data(from: URL(string: "https://origin.test:\(origin.port)\(path)")!)
            return nil
        } catch {
            return error
        }
    }

    private var names: String { "origin origin.test:\(origin.port) over HTTP/3 through hop 1 (\(relay.host):\(relay.port))" }

    func testAResetStreamFailsNamingTheOriginAndTheHop() async throws {
        let error = await fetch("/reset")
        let text = String(describing: try XCTUnwrap(error))
        XCTAssertTrue(text.hasPrefix(names), text)
        XCTAssertTrue(text.contains("reset the stream: H3_INTERNAL_ERROR 0x102"), text)
        XCTAssertEqual(try origin.events(), ["REQUEST /reset 127.0.5.2"], "the origin sees the relay")
    }

    func testGOAWAYBeforeTheRequestFailsNamingTheOrigin() async throws {
        let error = await fetch("/goaway")
        let text = String(describing: try XCTUnwrap(error))
        XCTAssertTrue(text.hasPrefix(names), text)
        XCTAssertTrue(text.contains("the origin sent GOAWAY"), text)
    }

    func testAStalledOriginEndsWithTheIdleTimeoutNamingOriginAndHop() async throws {
        let started = Date()
        let failure = await fetch("/stall", idleTimeout: 1.5)
        let error = try XCTUnwrap(failure as? FetchError, "\(String(describing: failure))")
        guard case .idleTimeout(let seconds, let peer, let route, _) = error.detail else { return XCTFail("\(error)") }
        XCTAssertEqual(seconds, 1.5)
        XCTAssertEqual(peer, "origin.test:\(origin.port)")
        XCTAssertEqual(route, ["\(relay.host):\(relay.port)"])
        XCTAssertLessThan(Date().timeIntervalSince(started), 6)
    }

    /// A streamed body over HTTP/3 is read no faster than its reader takes it: while the reader
    /// waits, QUIC flow control holds the origin back (its own count of bytes sent stays near
    /// the windows), and the whole body arrives once the reader goes on.
    func testAStreamedBodyHoldsTheOriginBackWhileTheReaderWaits() async throws {
        let size = 12 << 20
        let hop = TestServers.relayHop(token: TestServers.relayBToken, url: URL(string: "https://\(relay.host):\(relay.port)")!, relayProtocol: .http3)
        var configuration = TestServers.configuration(hops: [hop])
        configuration.originProtocol = .http3
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        let (body, response) = try await session.bytes(for: HTTPRequest(url: URL(string: "https://origin.test:\(origin.port)/bulk/\(size)")!))
        XCTAssertEqual(response.httpVersion, "HTTP/3")
        // aioquic sends about 2 MB/s through the Python relay: unchecked, it would be past 6 MiB
        // after 4 s; held back, it stops near the stream window and the reader's buffer (~1.6 MiB).
        try await Task.sleep(nanoseconds: 4_000_000_000)
        let sentWhileWaiting = try XCTUnwrap(try origin.events().last { $0.hasPrefix("SENT ") }.flatMap { Int($0.dropFirst(5)) })
        XCTAssertLessThan(sentWhileWaiting, 3 << 20, "the origin sent \(sentWhileWaiting) bytes to a reader that took none")
        let all = try await body.collect()
        XCTAssertEqual(all.count, size)
    }

    func testTheRequestTimeLimitHoldsOverHTTP3() async throws {
        let started = Date()
        let failure = await fetch("/stall", requestTimeout: 1.5)
        let error = try XCTUnwrap(failure as? FetchError, "\(String(describing: failure))")
        guard case .timedOut(let seconds) = error.detail else { return XCTFail("\(error)") }
        XCTAssertEqual(seconds, 1.5)
        XCTAssertLessThan(Date().timeIntervalSince(started), 6)
    }
}
