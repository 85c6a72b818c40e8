import Foundation
import XCTest
import OAuthFlow
import RelayFetch
import RelayFetchTestSupport

/// A hostile device authorization endpoint (Samples/servers/hostile/device_flow_idp.py, plain
/// HTTP on 127.0.0.162, reached through relay A) naming a polling interval no client can sleep:
/// negative, or 1e300 seconds. Converting either to nanoseconds trapped and ended the process;
/// the client now polls at the RFC 8628 default for a negative interval, and never waits past
/// the code's expiry (1 s here).
final class HostileDeviceFlowTests: XCTestCase {
    private func tokens(interval: String, expiresIn: String) async throws -> (TokenResponse, seconds: Double, polls: Int) {
        let server = try HostileServer(script: "device_flow_idp.py", host: "127.0.0.162",
                                       arguments: ["--interval", interval, "--expires-in", expiresIn])
        defer { server.stop() }
        let base = "http://127.0.0.162:\(server.port)"
        let provider = ProviderMetadata(issuer: base, tokenEndpoint: URL(string: base + "/token"))
        let client = try await OAuthClient.connect(to: .endpoints(provider),
                                                   client: OAuthClientConfiguration(clientID: "device", redirectURI: URL(string: base + "/cb")!),
                                                   sessionConfiguration: TestServers.configuration(hops: [TestServers.relayHop()]))
        defer { client.invalidate() }
        let flow = DeviceAuthorizationFlow(client: client, driver: LoginDriver(username: "u", password: "p"), endpoint: URL(string: base + "/device"))
        let code = try await flow.requestCode()
        let started = Date()
        let tokens = try await flow.poll(code)
        let polls = try server.events().filter { $0.hasSuffix("\tPOST\t/token") }.count
        return (tokens, Date().timeIntervalSince(started), polls)
    }

    func testNegativeIntervalPollsAtTheDefaultUntilExpiry() async throws {
        let (tokens, seconds, polls) = try await tokens(interval: "-1", expiresIn: "1")
        XCTAssertEqual(tokens.accessToken, "access-token")
        XCTAssertEqual(polls, 1)
        XCTAssertGreaterThanOrEqual(seconds, 0.9, "the first poll waits for the code's expiry, sooner than the default 5 s")
        XCTAssertLessThan(seconds, 4.5)
    }

    func testIntervalOf1e300SecondsWaitsNoLongerThanTheCodeLives() async throws {
        let (tokens, seconds, polls) = try await tokens(interval: "1e300", expiresIn: "1")
        XCTAssertEqual(tokens.accessToken, "access-token")
        XCTAssertEqual(polls, 1)
        XCTAssertLessThan(seconds, 4.5)
    }
}
