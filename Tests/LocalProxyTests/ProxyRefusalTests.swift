import XCTest
import RelayTransport
@testable import LocalProxy

/// How a chain's failure reads to a local client: the last relay's answer about the target is
/// the target's (unreachable, refused, not allowed), anything before it the chain's.
final class ProxyRefusalTests: XCTestCase {
    private func hop(_ index: Int) -> HopDescription { HopDescription(index: index, endpoint: "relay\(index).test:443", protocolName: "HTTP/2 CONNECT") }

    func testTheLastRelaysAnswerIsTheTargets() {
        let cases: [(RelayError.Cause, ProxyRefusal)] = [
            (.tunnelRefused(status: 503, reason: "Service Unavailable"), .hostUnreachable),
            (.tunnelRefused(status: 500, reason: "Internal Server Error"), .hostUnreachable),
            (.tunnelRefused(status: 502, reason: "Connection refused"), .connectionRefused),
            (.tunnelRefused(status: 403, reason: "Forbidden"), .notAllowed),
            (.tunnelRefused(status: 504, reason: "Gateway Timeout"), .timedOut),
            (.socksRefused(.connectionRefused), .connectionRefused),
            (.socksRefused(.notAllowedByRuleset), .notAllowed),
        ]
        for (cause, expected) in cases { XCTAssertEqual(ProxyRefusal(RelayError(hop: hop(2), cause: cause), chainLength: 2), expected, "\(cause)") }
    }

    func testAFailureBeforeTheLastRelayIsTheChains() {
        XCTAssertEqual(ProxyRefusal(RelayError(hop: hop(1), cause: .connectionRefused), chainLength: 1), .relayUnreachable)
        XCTAssertEqual(ProxyRefusal(RelayError(hop: hop(1), cause: .tunnelRefused(status: 503, reason: "x")), chainLength: 2), .relayUnreachable)
        XCTAssertEqual(ProxyRefusal(RelayError(hop: hop(2), cause: .unreachable(via: 1, status: 502, reason: "x")), chainLength: 2), .relayUnreachable)
        XCTAssertEqual(ProxyRefusal(RelayError(hop: hop(1), cause: .timeout), chainLength: 2), .timedOut)
    }
}
