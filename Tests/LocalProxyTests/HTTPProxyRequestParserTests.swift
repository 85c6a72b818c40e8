import XCTest
@testable import LocalProxy

/// The HTTP proxy request machine over bytes alone: CONNECT, absolute-form http:// requests
/// rewritten to origin form, Basic proxy authentication, and the limits.
final class HTTPProxyRequestParserTests: XCTestCase {
    func testConnectOpensATunnelWithWhatFollowsTheHead() {
        var parser = HTTPProxyRequestParser(credentials: ProxyCredentials())
        XCTAssertEqual(parser.receive(Array("CONNECT Origin.test:443 HTTP/1.1\r\nHost: origin.test:443\r\n".utf8)).next, .wait)
        XCTAssertEqual(parser.receive(Array("\r\nTLS".utf8)).next,
                       .open(ProxyRequest(dialect: .httpConnect, host: "origin.test", port: 443, identity: nil, firstBytes: Array("TLS".utf8))))
    }

    func testAbsoluteFormIsRewrittenToOriginFormWithoutProxyHeaders() {
        var credentials = ProxyCredentials()
        credentials.add(username: "bob", password: "pw")
        var parser = HTTPProxyRequestParser(credentials: credentials)
        let step = parser.receive(Array(("GET http://origin.test:8080/a?b=1 HTTP/1.1\r\nHost: origin.test:8080\r\n"
            + "Proxy-Authorization: Basic Ym9iOnB3\r\nProxy-Connection: keep-alive\r\nAccept: */*\r\nProxy-Conroxy-Connection: x\r\n\r\n").utf8))
        guard case .open(let request) = step.next else { return XCTFail("\(step)") }
        XCTAssertEqual(request.host, "origin.test")
        XCTAssertEqual(request.port, 8080)
        XCTAssertEqual(request.identity, "bob")
        XCTAssertEqual(String(decoding: request.firstBytes, as: UTF8.self),
                       "GET /a?b=1 HTTP/1.1\r\nHost: origin.test:8080\r\nAccept: */*\r\nConnection: close\r\n\r\n")
    }

    func testMissingOrWrongCredentialsGet407() {
        var credentials = ProxyCredentials()
        credentials.add(username: "bob", password: "pw")
        for header in ["", "Proxy-Authorization: Basic Ym9iOnd4\r\n"] {
            var parser = HTTPProxyRequestParser(credentials: credentials)
            let step = parser.receive(Array("CONNECT origin.test:443 HTTP/1.1\r\n\(header)\r\n".utf8))
            XCTAssertEqual(step.next, .close)
            XCTAssertTrue(String(decoding: step.reply, as: UTF8.self).hasPrefix("HTTP/1.1 407 "))
        }
    }

    func testHTTPSAbsoluteFormAndBadTargetsAreRefused() {
        for head in ["GET https://origin.test/ HTTP/1.1\r\n\r\n", "CONNECT origin.test HTTP/1.1\r\n\r\n", "CONNECT a b:1 HTTP/1.1\r\n\r\n",
                     "CONNECT [::1:443 HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\n\r\n"] {
            var parser = HTTPProxyRequestParser(credentials: ProxyCredentials())
            let step = parser.receive(Array(head.utf8))
            XCTAssertEqual(step.next, .close, head)
            XCTAssertFalse(step.reply.isEmpty, head)
        }
    }

    func testAnIPv6ConnectTargetIsBare() {
        var parser = HTTPProxyRequestParser(credentials: ProxyCredentials())
        XCTAssertEqual(parser.receive(Array("CONNECT [::1]:443 HTTP/1.1\r\n\r\n".utf8)).next,
                       .open(ProxyRequest(dialect: .httpConnect, host: "::1", port: 443, identity: nil, firstBytes: [])))
    }

    func testAHeadPastTheLimitIsRefusedWithoutWaitingForItsEnd() {
        var parser = HTTPProxyRequestParser(credentials: ProxyCredentials())
        _ = parser.receive(Array("GET http://origin.test/ HTTP/1.1\r\n".utf8))
        let step = parser.receive([UInt8](repeating: UInt8(ascii: "a"), count: HTTPProxyRequestParser.maximumHeadBytes))
        XCTAssertEqual(step.next, .close)
        XCTAssertTrue(String(decoding: step.reply, as: UTF8.self).hasPrefix("HTTP/1.1 431 "))
    }

    func testTheFirstByteChoosesTheDialect() {
        var noise = ProxyHandshake(credentials: ProxyCredentials())
        XCTAssertEqual(noise.receive([4, 1, 0, 80]).next, .close)
        var socks = ProxyHandshake(credentials: ProxyCredentials())
        XCTAssertEqual(socks.receive([5, 1, 0]).reply, [5, 0])
        XCTAssertEqual(socks.isSOCKS, true)
    }
}
