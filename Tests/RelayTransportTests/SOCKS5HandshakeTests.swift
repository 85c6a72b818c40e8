import XCTest
@testable import RelayTransport

/// The SOCKS5 handshake (RFC 1928, RFC 1929) as a state machine, bytes in and steps out, with
/// no socket: the messages it sends, what it accepts, and the typed error for every answer
/// that is not a success.
final class SOCKS5HandshakeTests: XCTestCase {
    private let hop = HopDescription(index: 1, endpoint: "127.0.0.61:1080", protocolName: "SOCKS5")
    private let nextHop = HopDescription(index: 2, endpoint: "127.0.0.11:3129", protocolName: "HTTPS")
    private let origin = TunnelTarget(host: "origin.test", port: 443)
    /// A successful reply, bound to 127.0.0.61:40000.
    private let success: [UInt8] = [5, 0, 0, 1, 127, 0, 0, 61, 0x9C, 0x40]

    private func handshake(_ target: TunnelTarget? = nil, credentials: RelayCredentials? = nil, nextHop: HopDescription? = nil) throws -> SOCKS5Handshake {
        try SOCKS5Handshake(target: target ?? origin, credentials: credentials, hop: hop, nextHop: nextHop)
    }

    func testTheTargetNameTravelsToTheServerAndLeftoverBytesBelongToTheTunnel() throws {
        var machine = try handshake()
        XCTAssertEqual(machine.start(), [5, 1, 0], "version 5, one method: no authentication")
        guard case .send(let request) = machine.receive([5, 0]) else { return XCTFail("no CONNECT after the method was chosen") }
        XCTAssertEqual(request, [5, 1, 0, 3, 11] + Array("origin.test".utf8) + [0x01, 0xBB], "CONNECT with ATYP 3: the name, not an address")
        // The reply in pieces: nothing happens until it is whole; what follows it is the tunnel's.
        guard case .needMore = machine.receive(Array(success[0..<3])) else { return XCTFail() }
        guard case .needMore = machine.receive(Array(success[3..<7])) else { return XCTFail() }
        guard case .established(let leftover) = machine.receive(Array(success[7...]) + Array("hello".utf8)) else { return XCTFail() }
        XCTAssertEqual(leftover, Array("hello".utf8))
    }

    func testADomainNameInTheReplyIsSkippedWhole() throws {
        var machine = try handshake()
        _ = machine.start()
        _ = machine.receive([5, 0])
        guard case .established(let leftover) = machine.receive([5, 0, 0, 3, 4] + Array("host".utf8) + [0, 80, 42]) else { return XCTFail() }
        XCTAssertEqual(leftover, [42])
    }

    func testIPLiteralsTravelAsAddresses() throws {
        for (host, expected) in [("127.0.0.21", [1, 127, 0, 0, 21] as [UInt8]), ("::1", [4] + [UInt8](repeating: 0, count: 15) + [1]),
                                 ("[::1]", [4] + [UInt8](repeating: 0, count: 15) + [1])] {
            var machine = try handshake(TunnelTarget(host: host, port: 8443))
            _ = machine.start()
            guard case .send(let request) = machine.receive([5, 0]) else { return XCTFail(host) }
            XCTAssertEqual(request, [5, 1, 0] + expected + [0x20, 0xFB], host)
        }
    }

    func testCredentialsAreOfferedAndSentAsRFC1929() throws {
        var machine = try handshake(credentials: RelayCredentials(username: "alice", password: "s3cret"))
        XCTAssertEqual(machine.start(), [5, 2, 0, 2], "no authentication and username/password")
        guard case .send(let authentication) = machine.receive([5, 2]) else { return XCTFail() }
        XCTAssertEqual(authentication, [1, 5] + Array("alice".utf8) + [6] + Array("s3cret".utf8))
        guard case .send(let request) = machine.receive([1, 0]) else { return XCTFail("no CONNECT after the credentials were accepted") }
        XCTAssertEqual(request.prefix(4), [5, 1, 0, 3])
        guard case .established = machine.receive(success) else { return XCTFail() }
    }

    func testRejectedCredentialsAndNoAcceptableMethodAreTypedErrorsNamingTheHop() throws {
        var rejected = try handshake(credentials: RelayCredentials(username: "alice", password: "wrong"))
        _ = rejected.start()
        _ = rejected.receive([5, 2])
        assertFailure(rejected.receive([1, 0xFF]), hop: hop, cause: .socksAuthenticationFailed(status: 255),
                      description: "hop 1 (127.0.0.61:1080, SOCKS5): the SOCKS5 server rejected the username and password (RFC 1929 status 255)")

        var none = try handshake()
        _ = none.start()
        assertFailure(none.receive([5, 0xFF]), hop: hop, cause: .socksNoAcceptableMethod(offered: "no authentication"),
                      description: "hop 1 (127.0.0.61:1080, SOCKS5): the SOCKS5 server accepts none of the authentication methods offered (no authentication)")
    }

    /// Every failure reply of RFC 1928 §6, and an unassigned one, names the hop and the reply;
    /// with a relay behind the SOCKS hop, "could not reach it" names that relay.
    func testEachReplyCodeIsATypedErrorNamingTheHop() throws {
        let words = [1: "general SOCKS server failure", 2: "connection not allowed by ruleset", 3: "network unreachable",
                     4: "host unreachable", 5: "connection refused", 6: "TTL expired", 7: "command not supported",
                     8: "address type not supported", 9: "unassigned code"]
        for code in 1...9 {
            let reply = SOCKS5Reply(code: UInt8(code))
            XCTAssertEqual(reply.code, UInt8(code))
            var machine = try handshake()
            _ = machine.start()
            _ = machine.receive([5, 0])
            assertFailure(machine.receive([5, UInt8(code), 0]), hop: hop, cause: .socksRefused(reply),
                          description: "hop 1 (127.0.0.61:1080, SOCKS5): the SOCKS5 server refused the connection: reply \(code) (\(words[code]!))")

            var chained = try handshake(TunnelTarget(host: "127.0.0.11", port: 3129), nextHop: nextHop)
            _ = chained.start()
            _ = chained.receive([5, 0])
            let unreachable = (3...6).contains(code)
            assertFailure(chained.receive([5, UInt8(code), 0]), hop: unreachable ? nextHop : hop,
                          cause: unreachable ? .unreachable(via: 1, status: code, reason: words[code]!) : .socksRefused(reply), description: nil)
        }
    }

    func testMalformedAnswersAreProtocolErrors() throws {
        for (answer, why) in [([4, 0] as [UInt8], "not a SOCKS5 server"), ([5, 2], "which was not offered"), ([5, 0, 9], "more than its method")] {
            var machine = try handshake()
            _ = machine.start()
            guard case .failed(let error) = machine.receive(answer), case .protocolError(let text) = error.cause else { return XCTFail("\(answer)") }
            XCTAssertTrue(text.contains(why), text)
        }
        var machine = try handshake()
        _ = machine.start()
        _ = machine.receive([5, 0])
        guard case .failed(let error) = machine.receive([5, 0, 0, 7, 0]), case .protocolError = error.cause else { return XCTFail() }
    }

    func testWhatSOCKS5CannotCarryFailsBeforeAnyByteIsSent() {
        let long = String(repeating: "a", count: 256)
        for (target, credentials) in [(TunnelTarget(host: long, port: 443), nil), (origin, RelayCredentials(username: "", password: "x")),
                                      (origin, RelayCredentials(username: "u", password: long))] {
            XCTAssertThrowsError(try handshake(target, credentials: credentials)) { error in
                guard let error = error as? RelayError, case .unsupported(let why) = error.cause else { return XCTFail("\(error)") }
                XCTAssertEqual(error.hop, hop)
                XCTAssertTrue(why.contains("1 to 255 bytes"), why)
            }
        }
    }

    private func assertFailure(_ step: TunnelHandshakeStep, hop: HopDescription, cause: RelayError.Cause, description: String?,
                               file: StaticString = #filePath, line: UInt = #line) {
        guard case .failed(let error) = step else { return XCTFail("\(step)", file: file, line: line) }
        XCTAssertEqual(error.hop, hop, file: file, line: line)
        XCTAssertEqual(error.cause, cause, file: file, line: line)
        if let description { XCTAssertEqual(error.description, description, file: file, line: line) }
    }
}
