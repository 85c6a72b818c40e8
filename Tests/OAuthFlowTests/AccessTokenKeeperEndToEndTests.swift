import Foundation
import XCTest
@testable import OAuthFlow
import RelayFetch
import RelayFetchTestSupport

/// `AccessTokenKeeper` as a hop's `RelayTokenSource`, against the test identity provider and the
/// relay front that admits only its tokens (`TokenRelayFront`): the token is kept while it lives
/// and renewed once its life (here the scenario's `maximumTokenLifetime`) is nearly over.
final class AccessTokenKeeperEndToEndTests: XCTestCase {
    /// `front` as an HTTP/1.1 hop whose token comes from a keeper of `scenario` (which reaches the
    /// IdP through the same hop, asked without a token).
    private func tokenHop(_ front: TokenRelayFront, scenario: OAuthScenario) throws -> (ProxyConfiguration.RelayHop, AccessTokenKeeper) {
        var hop = ProxyConfiguration.RelayHop(http2RelayEndpoint: front.url,
                                              tlsOptions: .init(pinnedPublicKeySHA256: [try TestServers.relayPublicKeySHA256()]))
        hop.relayProtocol = .http1
        let keeper = AccessTokenKeeper(scenario: scenario, sessionConfiguration: TestServers.configuration(hops: [hop]))
        hop.relayTokenSource = RelayTokenSource(keeper)
        return (hop, keeper)
    }

    func testTokenIsRenewedBeforeItExpires() async throws {
        let front = try TokenRelayFront()
        let file = try TokenRelayFront.scenarioFile(maximumTokenLifetime: 2)
        let scenario = try OAuthScenario.load(Data(contentsOf: URL(fileURLWithPath: file)), file: file)
        let (hop, _) = try tokenHop(front, scenario: scenario)
        let session = try Session(configuration: TestServers.configuration(hops: [hop]))
        defer { session.invalidate() }

        // Two tunnels within the token's life share it; a third after it gets a new one.
        for url in ["https://origin.test/index.html", "https://origin2.test/index.html"] {
            let (_, response) = try await session.data(from: URL(string: url)!)
            XCTAssertEqual(response.statusCode, 200)
        }
        try await Task.sleep(nanoseconds: 2_200_000_000)
        // A second session through the same hop (the same keeper): a new tunnel for certain,
        // where the first session's would be reused for the origin it already reached.
        let later = try Session(configuration: TestServers.configuration(hops: [hop]))
        defer { later.invalidate() }
        let (_, late) = try await later.data(from: URL(string: "https://origin.test/index.html")!)
        XCTAssertEqual(late.statusCode, 200)

        let verified = try front.decisions().filter { $0.kind == "VERIFIED" }
        XCTAssertEqual(verified.count, 3, "one CONNECT per tunnel: \(verified)")
        guard verified.count == 3 else { return }
        XCTAssertEqual(verified[0].token, verified[1].token, "the token was not kept while it lived")
        XCTAssertNotEqual(verified[1].token, verified[2].token, "the token was not renewed")
        for decision in verified {
            XCTAssertTrue(try IdentityProvider.secrets().contains { $0.name == "access_token" && $0.value == decision.token },
                          "a token the provider did not issue")
        }
    }

    func testRenewalComesATenthOfTheLifeEarlyAtMostAMinute() {
        XCTAssertEqual(AccessTokenKeeper.renewalDelay(expiresIn: 600, cap: nil), 540)
        XCTAssertEqual(AccessTokenKeeper.renewalDelay(expiresIn: 3600, cap: nil), 3540)
        XCTAssertEqual(AccessTokenKeeper.renewalDelay(expiresIn: 600, cap: 2), 1.8, accuracy: 1e-9)
        XCTAssertEqual(AccessTokenKeeper.renewalDelay(expiresIn: nil, cap: nil), .infinity)
    }

    /// The device grant for a person (alice approves in the runner's second session), through
    /// the front: the token opens a tunnel; a refused one is replaced by a new one.
    func testDeviceGrantTokenOpensATunnelAndIsReplacedWhenRefused() async throws {
        let front = try TokenRelayFront()
        let json = """
            {"name": "relay token for alice", "issuer": "\(IdentityProvider.issuer)", "grant": "device_code",
             "deviceAuthorizationEndpoint": "\(IdentityProvider.origin)/o/device-authorization/",
             "client": {"id": "\(IdentityProvider.deviceClientID)"}, "scopes": ["openid"],
             "login": {"username": "\(IdentityProvider.username)", "password": "\(IdentityProvider.password)"}}
            """
        let scenario = try OAuthScenario.load(Data(json.utf8), file: "device.json")
        try scenario.requireAccessTokenGrant(file: "device.json")
        let (hop, keeper) = try tokenHop(front, scenario: scenario)
        let session = try Session(configuration: TestServers.configuration(hops: [hop]))
        defer { session.invalidate() }
        let (_, response) = try await session.data(from: URL(string: "https://origin.test/index.html")!)
        XCTAssertEqual(response.statusCode, 200)
        let verified = try front.decisions().filter { $0.kind == "VERIFIED" }
        XCTAssertEqual(verified.map(\.detail), [IdentityProvider.username], "the token's subject is alice")
        let first = try XCTUnwrap(verified.first?.token)
        let second = try await keeper.accessToken(replacing: first)
        XCTAssertNotEqual(second, first)
        for token in [first, second] {
            XCTAssertTrue(try IdentityProvider.secrets().contains { $0.name == "access_token" && $0.value == token })
        }
    }
}
