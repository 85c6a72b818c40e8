import Foundation
@testable import RelayFetch
import XCTest

/// What a session takes from an origin's `Alt-Svc` (RFC 7838): an `h3` alternative on the
/// origin's own host, per origin; `clear` forgets it; other protocols, other hosts and plain
/// http are ignored; an origin whose QUIC failed stays on TCP.
final class OriginAltServicesTests: XCTestCase {
    private func response(_ url: String, altSvc: String) -> HTTPResponse {
        HTTPResponse(statusCode: 200, httpVersion: "HTTP/2", headerFields: [("Alt-Svc", altSvc)], url: URL(string: url)!, relayHops: [])
    }

    func testTakesTheH3AlternativeOnTheOriginsOwnHost() {
        let memory = OriginAltServices()
        memory.note(response("https://a.test/", altSvc: "h3-29=\":8443\", h3=\":9443\"; ma=86400"))
        XCTAssertEqual(memory.http3Port(host: "a.test", port: 443), 9443)
        XCTAssertNil(memory.http3Port(host: "a.test", port: 8443), "per origin: host and port")
        memory.note(response("https://b.test/", altSvc: "h3=\"other.test:443\""))
        XCTAssertNil(memory.http3Port(host: "b.test", port: 443), "an alternative on another host needs a lookup of its own")
        memory.note(response("https://c.test/", altSvc: "h2=\":443\""))
        XCTAssertNil(memory.http3Port(host: "c.test", port: 443))
        memory.note(response("http://d.test/", altSvc: "h3=\":443\""))
        XCTAssertNil(memory.http3Port(host: "d.test", port: 80), "only https origins")
    }

    func testClearForgetsAndFailedQUICStaysOnTCP() {
        let memory = OriginAltServices()
        memory.note(response("https://a.test/", altSvc: "h3=\":443\""))
        memory.note(response("https://a.test/", altSvc: "clear"))
        XCTAssertNil(memory.http3Port(host: "a.test", port: 443))
        memory.note(response("https://b.test/", altSvc: "h3=\":443\""))
        memory.preferTCP(host: "b.test", port: 443)
        memory.note(response("https://b.test/", altSvc: "h3=\":443\""))
        XCTAssertNil(memory.http3Port(host: "b.test", port: 443))
    }
}
