import XCTest
@testable import RelayTransport

/// Alt-Svc (RFC 7838) as the chain builder reads it from a relay's CONNECT answer.
final class AltServiceTests: XCTestCase {
    func testSameHostH3AlternativesAreRead() {
        XCTAssertEqual(AltService.parse("h3=\":4433\"; ma=86400"), .http3(port: 4433))
        XCTAssertEqual(AltService.parse("h2=\":443\", h3=\":8443\"; ma=60; persist=1"), .http3(port: 8443))
        XCTAssertEqual(AltService.parse(" clear "), .clear)
    }

    func testOtherHostsDraftsAndNonsenseAreIgnored() {
        XCTAssertNil(AltService.parse("h3=\"other.example:443\""), "another host: its certificate was never checked for that name")
        XCTAssertNil(AltService.parse("h3-29=\":443\""))
        XCTAssertNil(AltService.parse("h3=:443"))
        XCTAssertNil(AltService.parse("h3=\":0\""))
        XCTAssertNil(AltService.parse("h3=\":99999\""))
        XCTAssertNil(AltService.parse(""))
    }

    func testTheHTTP1AnswersAltSvcIsKept() {
        var parser = ConnectResponseParser()
        XCTAssertEqual(parser.feed(Array("HTTP/1.1 100 Continue\r\nAlt-Svc: h3=\":1\"\r\n\r\nHTTP/1.1 200 OK\r\nALT-SVC: h3=\":4433\"\r\n\r\nxy".utf8)),
                       .established(status: 200, leftover: Array("xy".utf8)))
        XCTAssertEqual(parser.altSvc, "h3=\":4433\"", "from the final answer, whatever the field name's case")
    }

    func testOnlyAutomaticTLSRelaysAreListenedTo() {
        var memory = AltServiceMemory()
        let auto = RelayEndpoint(host: "127.0.0.11", port: 3129)
        var h2 = auto
        h2.relayProtocol = .http2
        memory.remember("h3=\":4433\"", from: h2)
        XCTAssertNil(memory.http3Port(for: auto.authority), "a relay told to speak HTTP/2 stays on TCP")
        memory.remember("h3=\":4433\"", from: auto)
        XCTAssertEqual(memory.http3Port(for: auto.authority), 4433)
        memory.remember("clear", from: auto)
        XCTAssertNil(memory.http3Port(for: auto.authority))
    }
}
