import Foundation
import RelayFetch
import RelayFetchTestSupport
import XCTest
@testable import PrivacyPass

/// End to end against our loopback Privacy Pass servers (Samples/servers/hostile/privacy_pass_*.py):
/// a relay front that answers CONNECT with 407 and a PrivateToken challenge and forwards good
/// tunnels to relay B (squid), and an RFC 9578 issuer reached through relay B. The client side
/// is this module: parse the challenge, blind, finalize, answer with the credential.
final class PrivacyPassRelayTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testATokenIssuedThroughRelayBOpensOneTunnelAndIsRefusedWhenSpentAgain() async throws {
        let issuer = try HostileServer(script: "privacy_pass_issuer.py", host: "127.0.3.2")
        defer { issuer.stop() }
        let front = try HostileServer(script: "privacy_pass_relay.py", host: "127.0.3.1",
                                      arguments: ["--issuer", "http://127.0.3.2:\(issuer.port)", "--upstream", "127.0.0.12:3128",
                                                  "--upstream-token", TestServers.relayBToken])
        defer { front.stop() }
        let issuerOrigin = "127.0.3.2:\(issuer.port)"

        // The relay's 407 and its challenge.
        let probe = try LoopbackHTTP(host: "127.0.3.1", port: front.port)
        try probe.send(Array("CONNECT origin.test:443 HTTP/1.1\r\nHost: origin.test:443\r\n\r\n".utf8))
        let refusal = try probe.readResponse()
        probe.close()
        XCTAssertEqual(refusal.status, 407)
        let challenge = try XCTUnwrap(PrivateTokenChallenge.parse(headerValues: refusal.values("proxy-authenticate")).first)
        XCTAssertEqual(challenge.challenge.issuer, "issuer.test")
        XCTAssertEqual(challenge.challenge.origins, ["relay.test"])
        XCTAssertEqual(challenge.challenge.redemptionContext.count, 32)
        XCTAssertEqual(challenge.maxAge, 60)

        // Issuance through relay B: the directory's key is the challenge's, the token verifies.
        let directory = try LoopbackHTTP.throughRelayB(to: issuerOrigin, method: "GET", path: "/.well-known/private-token-issuer-directory")
        XCTAssertEqual(directory.status, 200)
        let listing = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(directory.body)) as? [String: Any])
        let keys = try XCTUnwrap(listing["token-keys"] as? [[String: Any]])
        let tokenKey = try XCTUnwrap(Base64URL.decode(XCTUnwrap(keys.first?["token-key"] as? String)))
        XCTAssertEqual(tokenKey, challenge.tokenKey)
        let issuance = try TokenIssuance(tokenType: .publicRSA2048, tokenKey: tokenKey)
        let pending = try issuance.request(for: challenge.challenge)
        let answer = try LoopbackHTTP.throughRelayB(to: issuerOrigin, method: "POST", path: "/token-request",
                                                    fields: ["Content-Type": TokenRequest.mediaType, "Accept": TokenRequest.responseMediaType],
                                                    body: pending.request.serialized())
        XCTAssertEqual(answer.status, 200)
        let token = try issuance.finish(pending, response: answer.body)

        // A fetch through the front with the token: one tunnel, to the origin through relay B.
        let marker = TestServers.marker("privacy-pass")
        let hop = ProxyConfiguration.RelayHop(http2RelayEndpoint: URL(string: "http://127.0.3.1:\(front.port)")!,
                                              additionalHTTPHeaderFields: ["Proxy-Authorization": PrivateTokenChallenge.credential(for: token)])
        let session = try Session(configuration: TestServers.configuration(hops: [hop]))
        let (body, response) = try await session.data(from: URL(string: "https://origin.test/index.html?\(marker)")!)
        session.invalidate()
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertTrue(String(decoding: body, as: UTF8.self).contains("relayfetch sample site"))
        let originLines = try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0)
        XCTAssertEqual(originLines.first?[OriginLogField.remoteAddress.rawValue], "127.0.0.12", "the origin sees relay B")

        // The same token again, on a new session: double spending is refused.
        let replay = try Session(configuration: TestServers.configuration(hops: [hop]))
        defer { replay.invalidate() }
        do {
            _ = try await replay.data(from: URL(string: "https://origin.test/index.html?\(marker)-again")!)
            XCTFail("a spent token opened a second tunnel")
        } catch {}

        // Counts from the servers' logs: one issuance, seen from relay B; one redemption; one refusal.
        let issued = try issuer.events().filter { $0.hasPrefix("ISSUED\t") }
        XCTAssertEqual(issued, ["ISSUED\t127.0.0.12\t-"], "the issuer saw relay B's address, never the client's")
        XCTAssertTrue(try issuer.events().filter { $0.hasPrefix("DIRECTORY\t127.0.0.12") }.count == 1)
        let events = try front.events()
        XCTAssertEqual(events.filter { $0.hasPrefix("REDEEMED\torigin.test:443\t") }, ["REDEEMED\torigin.test:443\t\(hexString(token.nonce))"])
        XCTAssertEqual(events.filter { $0.hasPrefix("REFUSED\t") }, ["REFUSED\torigin.test:443\tdouble-spend"])
        XCTAssertEqual(events.filter { $0.hasPrefix("UPSTREAM\t") }, ["UPSTREAM\torigin.test:443\t200"])
    }

    /// A RelayFetch session whose relay demands Privacy Pass: no token configured, the session's
    /// responder answers the 407 with a token issued through relay B, and the page arrives.
    func testASessionFetchesThroughTheFrontByAnsweringItsChallenge() async throws {
        let servers = try PrivacyPassServers()
        let marker = TestServers.marker("privacy-pass-session")
        var configuration = TestServers.configuration(hops: [ProxyConfiguration.RelayHop(http2RelayEndpoint: servers.frontURL)])
        configuration.proxyChallengeResponder = servers.responder
        let session = try Session(configuration: configuration)
        let (body, response) = try await session.data(from: URL(string: "https://origin.test/index.html?\(marker)")!)
        session.invalidate()
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertTrue(String(decoding: body, as: UTF8.self).contains("relayfetch sample site"))
        let originLines = try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0)
        XCTAssertEqual(originLines.first?[OriginLogField.remoteAddress.rawValue], "127.0.0.12")
        XCTAssertEqual(servers.challenges.withLock { $0.count }, 1)
        XCTAssertEqual(try servers.issuer.events().filter { $0.hasPrefix("ISSUED\t") }, ["ISSUED\t127.0.0.12\t-"])
        let events = try servers.front.events()
        XCTAssertEqual(events.filter { $0.hasPrefix("REDEEMED\torigin.test:443\t") }.count, 1)
        XCTAssertEqual(events.filter { $0.hasPrefix("UPSTREAM\t") }, ["UPSTREAM\torigin.test:443\t200"])
    }
}
