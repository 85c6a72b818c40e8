import Foundation
import XCTest
import RelayFetch
import RelayFetchTestSupport
@testable import PrivacyPass
@testable import RelayFetchCLI
@testable import RelayTransport

/// The issuer directory is read once per session (`IssuerDirectoryCache`): used until its
/// Cache-Control max-age passes (at most `IssuerDirectory.longestLifetime`), read again when it
/// has expired or when a challenge names a key it lacks. Counts are the issuer's DIRECTORY lines
/// from relay B (the front reads the directory too, at start, from its own address).
final class PrivacyPassIssuerDirectoryTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    private func directoryReads(_ fronts: PrivacyPassFronts) throws -> Int {
        try fronts.issuer.events().filter { $0 == "DIRECTORY\t127.0.0.12" }.count
    }

    /// Three tunnels in one `get` (three hosts): three tokens, one directory read.
    func testOneSessionReadsTheDirectoryOnce() async throws {
        let fronts = try PrivacyPassFronts(.http1, issuerArguments: ["--directory-max-age", "60"])
        defer { fronts.stop() }
        let marker = TestServers.marker("ppdir")
        let run = await CommandRun.run(["get"] + ["origin.test", "www.origin.test", "h1.origin.test"].map { "https://\($0)/index.html?\(marker)" }
                                       + fronts.relayArguments())
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try fronts.issuer.events().filter { $0.hasPrefix("ISSUED\t") }.count, 3)
        XCTAssertEqual(try fronts.front.events().filter { $0.hasPrefix("REDEEMED\t") }.count, 3)
        XCTAssertEqual(try directoryReads(fronts), 1)
    }

    /// max-age=1: a second issuance two seconds later reads the directory again; within it, not.
    func testAnExpiredDirectoryIsReadAgain() async throws {
        let fronts = try PrivacyPassFronts(.http1, issuerArguments: ["--directory-max-age", "1"])
        defer { fronts.stop() }
        let issuer = issuer(for: fronts)
        _ = try await issuer.credential(for: try challenge())
        _ = try await issuer.credential(for: try challenge())
        XCTAssertEqual(try directoryReads(fronts), 1, "within max-age the cached directory serves")
        try await Task.sleep(nanoseconds: 2_000_000_000)
        _ = try await issuer.credential(for: try challenge())
        XCTAssertEqual(try directoryReads(fronts), 2, "after max-age it is read again")
        XCTAssertEqual(try fronts.issuer.events().filter { $0.hasPrefix("ISSUED\t127.0.0.12") }.count, 3)
    }

    /// A challenge whose token-key the cached directory lacks (a rotation, or a relay's own key)
    /// makes the client read the directory once more; a key the issuer does not publish then
    /// fails as noUsableChallenge, without a token request.
    func testAnUnknownTokenKeyReadsTheDirectoryAgainThenFails() async throws {
        let fronts = try PrivacyPassFronts(.http1, issuerArguments: ["--directory-max-age", "60"])
        defer { fronts.stop() }
        let issuer = issuer(for: fronts)
        _ = try await issuer.credential(for: try challenge())
        let foreign = TokenIssuance.tokenKey(for: try BlindRSASigner.generate(bits: 2048).publicKey)
        let tagged = try challenge(tokenKey: foreign)
        do {
            _ = try await issuer.credential(for: tagged)
            XCTFail("a foreign token-key was answered")
        } catch {
            XCTAssertEqual(error.reason, .noUsableChallenge("the relay's token-key is not one the issuer publishes"))
            XCTAssertEqual(error.issuer, "127.0.23.2:\(fronts.issuer.port)")
        }
        XCTAssertEqual(try directoryReads(fronts), 2)
        XCTAssertEqual(try fronts.issuer.events().filter { $0.hasPrefix("ISSUED\t") }.count, 1)
    }

    func testDirectoryLifetimeHonoursMaxAgeWithinTheClientsBound() {
        XCTAssertEqual(IssuerDirectory.lifetime(cacheControl: "max-age=30"), 30)
        XCTAssertEqual(IssuerDirectory.lifetime(cacheControl: "public, max-age=\"120\""), 120)
        XCTAssertEqual(IssuerDirectory.lifetime(cacheControl: "max-age=31536000"), IssuerDirectory.longestLifetime)
        XCTAssertEqual(IssuerDirectory.lifetime(cacheControl: "no-store"), 0)
        XCTAssertEqual(IssuerDirectory.lifetime(cacheControl: "max-age=60, no-cache"), 0)
        XCTAssertEqual(IssuerDirectory.lifetime(cacheControl: "max-age=-5"), 0)
        XCTAssertEqual(IssuerDirectory.lifetime(cacheControl: "max-age=soon"), 0)
        XCTAssertEqual(IssuerDirectory.lifetime(cacheControl: nil), IssuerDirectory.longestLifetime)
    }

    /// The CLI's issuer for hop 1, routed through the front (which admits the issuer untokened).
    private func issuer(for fronts: PrivacyPassFronts) -> PrivacyPassIssuer {
        var route = TestServers.configuration(hops: [TestServers.relayHop(token: nil, url: URL(string: "http://127.0.23.1:\(fronts.front.port)")!,
                                                                          trustTestCA: false)])
        route.maximumResponseSize = PrivacyPassIssuer.largestAnswer
        return PrivacyPassIssuer(issuer: URL(string: fronts.issuerURL)!, configuration: route, attestation: nil, budget: 10)
    }

    /// A relay's 407 with a fresh type 0x0002 challenge (the issuer signs any challenge).
    private func challenge(tokenKey: [UInt8]? = nil) throws -> ProxyChallenge {
        let challenge = TokenChallenge(tokenType: TokenType.publicRSA2048.rawValue, issuerName: Array("issuer.test".utf8),
                                       redemptionContext: SecureBytes.random(32) ?? [], originInfo: Array("relay.test".utf8))
        let offered = PrivateTokenChallenge(challenge: challenge, challengeBytes: challenge.serialized(), tokenKey: tokenKey, maxAge: 60)
        return ProxyChallenge(hop: 1, relay: "127.0.23.1:1", proxyAuthenticate: [offered.headerValue()])
    }
}
