import Foundation
import XCTest
import RelayFetch
import RelayFetchTestSupport

/// A header field whose value holds a CR LF would put a field of its own in the request (libcurl
/// sends custom fields as they are): the session refuses it before anything is sent, and a relay
/// hop's fields are checked the same way. Against the HTTP/1.1 hostile origin behind squid, whose
/// log shows every field it received.
final class HeaderFieldInjectionTests: XCTestCase {
    private var origin: HostileServer!

    override func setUpWithError() throws { origin = try HostileServer(script: "origin.py") }
    override func tearDown() { origin.stop() }

    func testRequestFieldWithLineBreakIsRefusedBeforeSending() async throws {
        let session = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop()]))
        defer { session.invalidate() }
        let clean = TestServers.marker("clean")
        _ = try await session.data(for: HTTPRequest(url: URL(string: "https://origin.test:\(origin.port)/landing?\(clean)")!,
                                                    headerFields: [("X-Note", "plain")]))
        let injected = TestServers.marker("injected")
        let request = HTTPRequest(url: URL(string: "https://origin.test:\(origin.port)/landing?\(injected)")!,
                                  headerFields: [("X-Note", "a\r\nX-Injected: yes")])
        do {
            _ = try await session.data(for: request)
            XCTFail("a field with a CR LF in its value was sent")
        } catch let error as HTTPFieldError {
            XCTAssertEqual(error, HTTPFieldError(.invalidValue(name: "X-Note")))
        }
        do {
            _ = try await session.bytes(for: request)
            XCTFail("a field with a CR LF in its value was streamed")
        } catch let error as HTTPFieldError {
            XCTAssertEqual(error, HTTPFieldError(.invalidValue(name: "X-Note")))
        }
        let events = try origin.events()
        XCTAssertEqual(events.filter { $0.contains(clean) }.count, 1, "the log must show the clean request: \(events)")
        XCTAssertEqual(events.filter { $0.contains(injected) }, [], "the origin must see nothing of the refused request")
        XCTAssertFalse(events.contains { $0.contains("X-Injected") })
    }

    func testRelayHopFieldWithLineBreakIsRefused() async throws {
        var hop = TestServers.relayHop()
        hop.additionalHTTPHeaderFields["X-Hop"] = "a\r\nX-Injected: yes"
        let marker = TestServers.marker("hop")
        do {
            let session = try Session(configuration: TestServers.configuration(hops: [hop]))
            defer { session.invalidate() }
            _ = try await session.data(from: URL(string: "https://origin.test:\(origin.port)/landing?\(marker)")!)
            XCTFail("a relay hop's field with a CR LF in its value was sent")
        } catch let error as FetchError {
            XCTAssertTrue(error.description.contains("X-Hop"), error.description)
        }
        let events = try origin.events()
        XCTAssertEqual(events.filter { $0.contains(marker) }, [], "the origin must see nothing")
    }
}
