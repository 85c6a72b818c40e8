import Foundation
import Locking
import RelayFetchTestSupport
import XCTest
@testable import PrivacyPass
@testable import RelayTransport

/// The client answers a relay's 407 at its hop: the HTTP/1.1 CONNECT to the Privacy Pass front
/// is refused with a PrivateToken challenge, the chain's responder issues a token through relay B
/// (the issuer sees 127.0.0.12), and the CONNECT is retried once with it. Each tunnel gets a
/// token of its own; without a responder, or when it has no answer, the 407 fails as before.
final class RelayChallengeAnswerTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testEachTunnelAnswersItsOwnChallengeWithAFreshToken() throws {
        let servers = try PrivacyPassServers()
        let issuer = servers.issuer, front = servers.front, responder = servers.responder
        let relay = RelayEndpoint(host: "127.0.3.1", port: front.port, usesTLS: false)
        XCTAssertEqual(try tunnel(through: relay, responder: responder), .success, "first tunnel")
        XCTAssertEqual(try tunnel(through: relay, responder: responder), .success, "second tunnel")
        XCTAssertEqual(servers.challenges.withLock { $0.map(\.hop) }, [1, 1], "one challenge answered per tunnel, at hop 1")
        XCTAssertEqual(try tunnel(through: relay, responder: nil), .refused(407), "no responder: the 407 fails the tunnel")
        XCTAssertEqual(try tunnel(through: relay, responder: { _, answer in answer(.success(nil)) }), .refused(407), "no answer: the same")

        // From the servers' logs: two issuances seen from relay B, two different tokens redeemed.
        XCTAssertEqual(try issuer.events().filter { $0.hasPrefix("ISSUED\t") }, ["ISSUED\t127.0.0.12\t-", "ISSUED\t127.0.0.12\t-"])
        let events = try front.events()
        let redeemed = events.filter { $0.hasPrefix("REDEEMED\torigin.test:443\t") }
        XCTAssertEqual(redeemed.count, 2)
        XCTAssertEqual(Set(redeemed).count, 2, "a token per tunnel, never reused")
        XCTAssertEqual(events.filter { $0.hasPrefix("CHALLENGE\t") }.count, 4)
        XCTAssertEqual(events.filter { $0.hasPrefix("REFUSED\t") }, [])
        XCTAssertEqual(events.filter { $0.hasPrefix("UPSTREAM\t") }, ["UPSTREAM\torigin.test:443\t200", "UPSTREAM\torigin.test:443\t200"])
    }

    private enum Outcome: Equatable { case success, refused(Int), failed(String) }

    private func tunnel(through relay: RelayEndpoint, responder: ProxyChallengeResponder?) throws -> Outcome {
        let loop = EventLoop()
        defer { loop.shutdown() }
        let done = expectation(description: "tunnel")
        let outcome = Locked<Outcome?>(nil)
        _ = loop.execute {
            let builder = RelayChainBuilder(loop: loop)
            builder.proxyChallengeResponder = responder
            builder.build(hops: [relay], to: TunnelTarget(host: "origin.test", port: 443), connectTimeout: 10) { result in
                switch result {
                case .success(let (layer, _)):
                    layer.close()
                    outcome.withLock { $0 = .success }
                case .failure(let error):
                    if case .tunnelRefused(let status, _) = error.cause {
                        outcome.withLock { $0 = .refused(status) }
                    } else {
                        outcome.withLock { $0 = .failed("\(error)") }
                    }
                }
                builder.closeAll()
                done.fulfill()
            }
        }
        wait(for: [done], timeout: 15)
        return try XCTUnwrap(outcome.withLock { $0 })
    }
}
