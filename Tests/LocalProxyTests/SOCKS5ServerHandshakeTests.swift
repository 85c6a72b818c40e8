import XCTest
@testable import LocalProxy

/// The SOCKS5 server machine over bytes alone: what it answers at each step of RFC 1928 and
/// RFC 1929, and that a target name stays a name.
final class SOCKS5ServerHandshakeTests: XCTestCase {
    private func credentials() -> ProxyCredentials {
        var credentials = ProxyCredentials()
        credentials.add(username: "alice", password: "s3cret")
        return credentials
    }

    func testADomainNameTargetIsKeptAsANameWithPipelinedBytes() {
        var machine = SOCKS5ServerHandshake(credentials: ProxyCredentials())
        let step = machine.receive([5, 1, 0] + [5, 1, 0, 3, 11] + Array("Origin.Test".utf8) + [0x01, 0xBB] + [0x16, 0x03])
        XCTAssertEqual(step.reply, [5, 0])
        XCTAssertEqual(step.next, .open(ProxyRequest(dialect: .socks5, host: "origin.test", port: 443, identity: nil, firstBytes: [0x16, 0x03])))
    }

    func testIPv4AndIPv6LiteralsByteByByte() {
        for (address, type, text) in [([127, 0, 0, 21] as [UInt8], UInt8(1), "127.0.0.21"), ([UInt8](repeating: 0, count: 15) + [1], 4, "::1")] {
            var machine = SOCKS5ServerHandshake(credentials: ProxyCredentials())
            var steps: [ProxyHandshakeStep] = []
            for byte in [5, 1, 0, 5, 1, 0, type] + address + [0, 80] { steps.append(machine.receive([byte])) }
            XCTAssertEqual(steps.last?.next, .open(ProxyRequest(dialect: .socks5, host: text, port: 80, identity: nil, firstBytes: [])))
            XCTAssertEqual(steps.flatMap(\.reply), [5, 0])
        }
    }

    func testUsernamePasswordPicksTheIdentityAndAWrongOneCloses() {
        var machine = SOCKS5ServerHandshake(credentials: credentials())
        XCTAssertEqual(machine.receive([5, 2, 0, 2]), ProxyHandshakeStep(reply: [5, 2], next: .wait))
        XCTAssertEqual(machine.receive([1, 5] + Array("alice".utf8) + [6] + Array("s3cret".utf8)), ProxyHandshakeStep(reply: [1, 0], next: .wait))
        XCTAssertEqual(machine.receive([5, 1, 0, 1, 10, 0, 0, 1, 0, 22]).next,
                       .open(ProxyRequest(dialect: .socks5, host: "10.0.0.1", port: 22, identity: "alice", firstBytes: [])))
        var wrong = SOCKS5ServerHandshake(credentials: credentials())
        _ = wrong.receive([5, 1, 2])
        XCTAssertEqual(wrong.receive([1, 5] + Array("alice".utf8) + [5] + Array("wrong".utf8)), ProxyHandshakeStep(reply: [1, 1], next: .close))
    }

    func testNoAcceptableMethodWhenAPasswordIsRequired() {
        var machine = SOCKS5ServerHandshake(credentials: credentials())
        XCTAssertEqual(machine.receive([5, 1, 0]), ProxyHandshakeStep(reply: [5, 0xFF], next: .close))
    }

    func testBindGetsCommandNotSupportedAndUDPAssociateOpens() {
        var bind = SOCKS5ServerHandshake(credentials: ProxyCredentials())
        XCTAssertEqual(bind.receive([5, 1, 0, 5, 2, 0, 1, 127, 0, 0, 1, 0, 53]), ProxyHandshakeStep(reply: [5, 0, 5, 7, 0, 1, 0, 0, 0, 0, 0, 0], next: .close))
        var associate = SOCKS5ServerHandshake(credentials: ProxyCredentials())
        XCTAssertEqual(associate.receive([5, 1, 0, 5, 3, 0, 1, 0, 0, 0, 0, 0, 0]).next,
                       .open(ProxyRequest(dialect: .socks5Associate, host: "0.0.0.0", port: 0, identity: nil, firstBytes: [])))
    }

    func testUDPDatagramHeadersRoundTripAndFragmentsAreDropped() {
        let named = SOCKS5UDPDatagram(host: "dns.test", port: 53, payload: [1, 2, 3])
        XCTAssertEqual(SOCKS5UDPDatagram(parsing: named.encoded), named)
        let literal = SOCKS5UDPDatagram(host: "127.0.1.3", port: 7, payload: [9])
        XCTAssertEqual(literal.encoded, [0, 0, 0, 1, 127, 0, 1, 3, 0, 7, 9])
        XCTAssertEqual(SOCKS5UDPDatagram(parsing: literal.encoded), literal)
        XCTAssertNil(SOCKS5UDPDatagram(parsing: [0, 0, 1, 1, 127, 0, 0, 1, 0, 7, 9]), "a fragment")
        XCTAssertNil(SOCKS5UDPDatagram(parsing: [0, 0, 0, 3, 0, 0, 7]), "an empty name")
    }

    func testANameWithBytesNoHostHasIsRefused() {
        var machine = SOCKS5ServerHandshake(credentials: ProxyCredentials())
        let step = machine.receive([5, 1, 0, 5, 1, 0, 3, 6] + Array("a\r\nb c".utf8) + [0, 80])
        XCTAssertEqual(step.next, .close)
        XCTAssertEqual(step.reply.suffix(10).prefix(2), [5, 1])
    }

    func testRepliesCarryTheRFC1928Codes() {
        let codes: [(ProxyRefusal?, UInt8)] = [(nil, 0), (.generalFailure, 1), (.notAllowed, 2), (.relayUnreachable, 3), (.hostUnreachable, 4),
                                               (.connectionRefused, 5), (.timedOut, 6)]
        for (refusal, code) in codes { XCTAssertEqual(SOCKS5ServerHandshake.reply(refusal), [5, code, 0, 1, 0, 0, 0, 0, 0, 0]) }
    }
}
