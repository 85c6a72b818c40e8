import XCTest
@testable import RelayTransport

/// A 407's `Proxy-Authenticate` values are kept, in order, for the chain's responder; other
/// answers keep none.
final class ConnectResponseChallengeTests: XCTestCase {
    func testA407KeepsItsChallengesInOrder() {
        var parser = ConnectResponseParser()
        let head = "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"r\"\r\n"
            + "proxy-authenticate:  PrivateToken challenge=\"AAIA\", max-age=\"10\"\r\nContent-Length: 0\r\n\r\n"
        XCTAssertEqual(parser.feed(Array(head.utf8)), .refused(status: 407, reason: "Proxy Authentication Required"))
        XCTAssertEqual(parser.proxyAuthenticate, ["Basic realm=\"r\"", "PrivateToken challenge=\"AAIA\", max-age=\"10\""])
    }

    func testOtherAnswersKeepNone() {
        for head in ["HTTP/1.1 403 Forbidden\r\nProxy-Authenticate: Basic\r\n\r\n", "HTTP/1.1 200 OK\r\nProxy-Authenticate: Basic\r\n\r\n"] {
            var parser = ConnectResponseParser()
            _ = parser.feed(Array(head.utf8))
            XCTAssertEqual(parser.proxyAuthenticate, [], head)
        }
    }
}
