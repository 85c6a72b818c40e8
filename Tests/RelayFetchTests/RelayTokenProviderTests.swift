import Foundation
import XCTest
import RelayFetch
import RelayFetchTestSupport

/// `RelayHop.relayTokenSource` on each kind of CONNECT the test relays speak (squid's HTTP/1.1,
/// nghttpx's HTTP/2, the HTTP/3 relay), all checking relay A's token: a provider that first
/// hands out a token the relay refuses is asked again with that token as `rejected`, and the
/// tunnel is built once more with the new one.
final class RelayTokenProviderTests: XCTestCase {
    /// A stale token until one is refused, then relay A's; remembers each question.
    private actor StaleThenFresh: RelayTokenProvider {
        private(set) var questions: [String?] = []
        private var refused = false

        func relayToken(replacing rejected: String?) async throws -> String {
            questions.append(rejected)
            if rejected != nil { refused = true }
            return refused ? String(TestServers.relayToken.dropFirst("Bearer ".count)) : "stale-token"
        }
    }

    private func fetchWithStaleToken(url: URL, relayProtocol: RelayProtocol) async throws {
        let provider = StaleThenFresh()
        var hop = TestServers.relayHop(token: nil, url: url, relayProtocol: relayProtocol)
        hop.relayTokenSource = RelayTokenSource(provider)
        let session = try Session(configuration: TestServers.configuration(hops: [hop]))
        defer { session.invalidate() }
        let marker = TestServers.marker("token-\(relayProtocol.rawValue)")
        let (_, response) = try await session.data(from: URL(string: "https://origin.test/index.html?\(marker)")!)
        XCTAssertEqual(response.statusCode, 200)
        let questions = await provider.questions
        XCTAssertEqual(questions, [nil, "stale-token"], "asked once, then once more after the 407")
        let origin = try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0)
        XCTAssertEqual(origin.values(OriginLogField.remoteAddress), ["127.0.0.11"])
        XCTAssertEqual(origin.values(OriginLogField.proxyAuthorization), ["-"], "a relay token reached the origin")
    }

    func testHTTP1ConnectGetsAFreshTokenAfterA407() async throws {
        try await fetchWithStaleToken(url: TestServers.relayURL, relayProtocol: .http1)
    }

    func testHTTP2ConnectGetsAFreshTokenAfterA407() async throws {
        try await fetchWithStaleToken(url: TestServers.http2RelayAURL, relayProtocol: .http2)
    }

    func testHTTP3ConnectGetsAFreshTokenAfterA407() async throws {
        try await fetchWithStaleToken(url: TestServers.http2RelayAURL, relayProtocol: .http3)
    }

    private struct ProviderDown: Error, CustomStringConvertible {
        var description: String { "the identity provider is down" }
    }

    /// Never a token: the provider fails, or hands out one the relay always refuses.
    private actor Unusable: RelayTokenProvider {
        let fails: Bool
        private(set) var questions = 0
        init(fails: Bool) { self.fails = fails }

        func relayToken(replacing rejected: String?) async throws -> String {
            questions += 1
            if fails { throw ProviderDown() }
            return "never-accepted-\(questions)"
        }
    }

    /// Both failures are `FetchError`s naming hop 1, with causes callers can compare; the relay
    /// that keeps refusing is asked twice (one retry), and no origin sees the request.
    func testNoUsableTokenIsATypedErrorNamingTheHop() async throws {
        for fails in [true, false] {
            let provider = Unusable(fails: fails)
            var hop = TestServers.relayHop(token: nil, url: TestServers.http2RelayAURL, relayProtocol: .http2)
            hop.relayTokenSource = RelayTokenSource(provider)
            let session = try Session(configuration: TestServers.configuration(hops: [hop]))
            let marker = TestServers.marker("token-unusable")
            do {
                _ = try await session.data(from: URL(string: "https://origin.test/index.html?\(marker)")!)
                XCTFail("fetched without a usable token")
            } catch let error as FetchError {
                let failure = try XCTUnwrap(error.relayError, "\(error)")
                XCTAssertEqual(failure.hop.index, 1)
                XCTAssertEqual(failure.cause, fails ? .tokenUnavailable("the identity provider is down")
                                                    : .tokenRefused(status: 407, reason: "Proxy Authentication Required"), "\(failure)")
            }
            session.invalidate()
            let questions = await provider.questions
            XCTAssertEqual(questions, fails ? 1 : 2)
            XCTAssertEqual(try TestServers.logLines(TestServers.originALog, containing: marker), [])
        }
    }
}
