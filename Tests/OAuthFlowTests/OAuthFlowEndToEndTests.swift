import Foundation
import XCTest
import HeadlessPage
import OAuthFlow
import RelayFetch
import RelayFetchTestSupport

/// Whole OAuth / OpenID Connect flows against a real identity provider (django-oauth-toolkit,
/// started once for this class), every request through squid relay A, each flow in a fresh
/// ephemeral session: login and consent forms, the intercepted redirect, the code exchange,
/// the ID token's signature and claims, userinfo, refresh, client credentials.
final class OAuthFlowEndToEndTests: XCTestCase {
    nonisolated(unsafe) private static var provider: IdentityProvider?

    override class func setUp() {
        super.setUp()
        provider = try? IdentityProvider()
    }

    override class func tearDown() {
        provider?.stop()
        provider = nil
        super.tearDown()
    }

    private func idp() throws -> IdentityProvider {
        try XCTUnwrap(Self.provider, "the identity provider (Samples/servers/oauth_idp/serve.py) did not start")
    }

    private func client(_ id: String, _ authentication: OAuthClientConfiguration.Authentication = .none,
                        redirect: String = "com.example.app:/callback", scopes: [String] = ["openid", "email"],
                        hops: [ProxyConfiguration.RelayHop] = [TestServers.relayHop()]) async throws -> OAuthClient {
        let configuration = OAuthClientConfiguration(clientID: id, authentication: authentication,
                                                     redirectURI: URL(string: redirect)!, scopes: scopes)
        return try await OAuthClient.connect(to: .issuer(try idp().issuer), client: configuration,
                                             sessionConfiguration: TestServers.configuration(hops: hops))
    }

    private var alice: LoginDriver { LoginDriver(username: IdentityProvider.username, password: IdentityProvider.password) }

    func testPublicClientLogsInConsentsAndRefreshesThroughTheRelay() async throws {
        let provider = try idp()
        let earlier = try provider.requests().count
        let client = try await client(IdentityProvider.publicClientID)
        defer { client.invalidate() }
        let flow = AuthorizationCodeFlow(client: client, driver: alice)
        let result = try await flow.run()
        XCTAssertEqual(result.pages.map { URLComponents(string: $0)?.path }, ["/accounts/login/", "/o/authorize/"], "login, then consent")
        let idToken = try XCTUnwrap(result.idToken)
        XCTAssertEqual(idToken.issuer, provider.issuer)
        XCTAssertEqual(idToken.audiences, [IdentityProvider.publicClientID])
        XCTAssertNotNil(idToken.nonce)
        let subject = try XCTUnwrap(idToken.subject)
        XCTAssertEqual(result.tokens.tokenType.lowercased(), "bearer")
        XCTAssertEqual(Set(result.tokens.scopes), ["openid", "email"])

        let userinfo = try await client.userinfo(accessToken: result.tokens.accessToken)
        XCTAssertEqual(userinfo["sub"]?.string, subject)
        XCTAssertEqual(userinfo["email"]?.string, "alice@origin.test")

        let refreshed = try await client.refresh(try XCTUnwrap(result.tokens.refreshToken))
        XCTAssertNotEqual(refreshed.accessToken, result.tokens.accessToken)
        if let raw = refreshed.idToken {
            let again = try flow.validator(try await client.keys()).validate(raw, nonce: nil)
            XCTAssertEqual(again.subject, subject)
        }
        let after = try await client.userinfo(accessToken: refreshed.accessToken)
        XCTAssertEqual(after["sub"]?.string, subject)

        // The provider saw every request from the relay's address and never the relay's token.
        let requests = Array(try provider.requests().dropFirst(earlier))
        XCTAssertTrue(requests.contains { $0.method == "POST" && $0.path == "/accounts/login/" }, "\(requests)")
        XCTAssertTrue(requests.contains { $0.method == "POST" && $0.path == "/o/token/" })
        XCTAssertEqual(Set(requests.map(\.clientAddress)), ["127.0.0.11"])
        XCTAssertFalse(requests.contains { $0.hadProxyAuthorization || $0.hadRelayToken })
    }

    /// Through relays A then B: the provider sees only relay B's address, and neither token.
    func testTwoHopChainShowsOnlyTheSecondRelayToTheProvider() async throws {
        let provider = try idp()
        let earlier = try provider.requests().count
        let hopB = TestServers.relayHop(token: TestServers.relayBToken, url: TestServers.relayBURL)
        let client = try await client(IdentityProvider.publicClientID, hops: [TestServers.relayHop(), hopB])
        defer { client.invalidate() }
        let result = try await AuthorizationCodeFlow(client: client, driver: alice).run()
        _ = try await client.userinfo(accessToken: result.tokens.accessToken)
        let requests = Array(try provider.requests().dropFirst(earlier))
        XCTAssertGreaterThanOrEqual(requests.count, 6, "\(requests)")
        XCTAssertEqual(Set(requests.map(\.clientAddress)), ["127.0.0.12"])
        XCTAssertFalse(requests.contains { $0.hadProxyAuthorization || $0.hadRelayToken })
    }

    /// A loopback redirect URI on a port nothing listens on: the flow completes, and relay A's
    /// log (which does show this flow's tunnels to the provider) has no tunnel to that port.
    func testLoopbackRedirectIsInterceptedAndNeverDialled() async throws {
        let provider = try idp()
        let port = try Self.unusedLoopbackPort()
        let client = try await client(IdentityProvider.confidentialClientID,
                                      .clientSecretBasic(secret: IdentityProvider.confidentialClientSecret),
                                      redirect: "http://127.0.0.1:\(port)/callback")
        let result = try await AuthorizationCodeFlow(client: client, driver: alice).run()
        client.invalidate()
        XCTAssertEqual(result.pages.map { URLComponents(string: $0)?.path }, ["/accounts/login/"], "consent is skipped for this client")
        XCTAssertEqual(result.idToken?.audiences, [IdentityProvider.confidentialClientID])
        let tunnels = try TestServers.waitForLogLines(TestServers.relayLog, containing: "origin.test:\(provider.port)\t", skipping: 0)
        XCTAssertFalse(tunnels.isEmpty, "relay A logged no tunnel to the provider: the log cannot prove anything")
        XCTAssertEqual(try TestServers.logLines(TestServers.relayLog, containing: ":\(port)\t").count, 0, "the redirect URI was dialled")
        XCTAssertThrowsError(try Self.connect(port: port), "something listens on the redirect port")
    }

    func testClientSecretPostAndClientCredentials() async throws {
        let service = try await client(IdentityProvider.serviceClientID, .clientSecretPost(secret: IdentityProvider.serviceClientSecret),
                                       scopes: ["read"])
        defer { service.invalidate() }
        let tokens = try await service.clientCredentials()
        XCTAssertEqual(tokens.scopes, ["read"])
        XCTAssertNil(tokens.idToken)
        let wrong = try await client(IdentityProvider.serviceClientID, .clientSecretBasic(secret: "not-the-secret"), scopes: ["read"])
        defer { wrong.invalidate() }
        do {
            _ = try await wrong.clientCredentials()
            XCTFail("a wrong client secret must be refused")
        } catch let error as OAuthError {
            XCTAssertEqual(error, OAuthError(.tokenEndpoint(status: 401, error: "invalid_client", description: nil)))
            XCTAssertFalse(error.description.contains("not-the-secret"))
        }
    }

    func testWrongPasswordAndDeniedConsentFailForTheirReasons() async throws {
        let client = try await client(IdentityProvider.publicClientID)
        defer { client.invalidate() }
        var wrongPassword = alice
        wrongPassword.password = "not-the-password"
        do {
            _ = try await AuthorizationCodeFlow(client: client, driver: wrongPassword).authorize()
            XCTFail("a wrong password must not log in")
        } catch let error as OAuthError {
            guard case .loginStuck(_, let reason) = error.code else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("login form came back"), reason)
            XCTAssertFalse(error.description.contains("not-the-password"))
        }
        let other = try await self.client(IdentityProvider.publicClientID)
        defer { other.invalidate() }
        var denying = alice
        denying.consent = .deny
        do {
            _ = try await AuthorizationCodeFlow(client: other, driver: denying).authorize()
            XCTFail("denied consent must not yield a code")
        } catch let error as OAuthError {
            XCTAssertEqual(error, OAuthError(.authorizationDenied(error: "access_denied", description: nil)))
        }
    }

    /// A wrong PKCE verifier and a replayed code are refused by the provider; ID token checks
    /// fail by name for a wrong audience, nonce, issuer, a tampered signature and expiry.
    func testCodeAndIDTokenChecksFailByName() async throws {
        let client = try await client(IdentityProvider.confidentialClientID,
                                      .clientSecretPost(secret: IdentityProvider.confidentialClientSecret))
        defer { client.invalidate() }
        let flow = AuthorizationCodeFlow(client: client, driver: alice)
        let first = try await flow.authorize()
        do {
            _ = try await client.exchange(code: first.code, verifier: PKCE().verifier)
            XCTFail("a wrong verifier must be refused")
        } catch let error as OAuthError {
            XCTAssertEqual(error.code, .tokenEndpoint(status: 400, error: "invalid_grant", description: nil))
        }
        let second = try await flow.authorize()
        let result = try await flow.complete(second)
        do {
            _ = try await flow.complete(second)
            XCTFail("a replayed code must be refused")
        } catch let error as OAuthError {
            XCTAssertEqual(error.code, .tokenEndpoint(status: 400, error: "invalid_grant", description: nil))
        }
        let raw = try XCTUnwrap(result.tokens.idToken)
        let keys = try await client.keys()
        var validator = flow.validator(keys)
        XCTAssertNoThrow(try validator.validate(raw, nonce: second.nonce))
        func failure(_ validator: IDTokenValidator, _ token: String = raw, nonce: String? = second.nonce, now: Date = Date(),
                     accessToken: String? = nil) -> IDTokenCheck? {
            do {
                _ = try validator.validate(token, nonce: nonce, accessToken: accessToken, now: now)
                return nil
            } catch {
                guard case .idToken(let check) = error.code else { return nil }
                return check
            }
        }
        XCTAssertEqual(failure(validator, nonce: "other"), .nonce)
        XCTAssertNotNil(result.idToken?.claims["at_hash"], "the provider sends at_hash: the check below is live")
        XCTAssertNil(failure(validator, accessToken: result.tokens.accessToken))
        XCTAssertEqual(failure(validator, accessToken: "another-access-token"), .accessTokenHash)
        // django-oauth-toolkit's ID tokens live 10 hours.
        guard case .expired? = failure(validator, now: Date().addingTimeInterval(11 * 3600)) else { return XCTFail("expiry not checked") }
        guard case .issuedAt? = failure(validator, now: Date().addingTimeInterval(3600)) else { return XCTFail("iat age not checked") }
        var parts = raw.split(separator: ".").map(String.init)
        var payload = try XCTUnwrap(Base64URL.decode(parts[1]))
        payload[payload.count - 3] ^= 0x01
        parts[1] = Base64URL.encode(payload)
        XCTAssertEqual(failure(validator, parts.joined(separator: ".")), .signature)
        validator.issuer = "https://origin.test/other"
        guard case .issuer? = failure(validator) else { return XCTFail("issuer not checked") }
        validator = flow.validator(keys)
        validator.clientID = IdentityProvider.publicClientID
        XCTAssertEqual(failure(validator), .audience(expected: IdentityProvider.publicClientID, actual: [IdentityProvider.confidentialClientID]))
    }

    /// RFC 8628: the user signs in and approves in a second ephemeral session while the client
    /// polls; a denial ends the poll with access_denied.
    func testDeviceAuthorizationGrantApprovedAndDenied() async throws {
        let provider = try idp()
        let endpoint = URL(string: provider.issuer + "/device-authorization/")!
        for consent in [LoginDriver.Consent.approve, .deny] {
            let device = try await client("device-app", scopes: ["openid", "read"])
            defer { device.invalidate() }
            var driver = alice
            driver.consent = consent
            driver.approveButton = "Accept"
            driver.denyButton = "Deny"
            let flow = DeviceAuthorizationFlow(client: device, driver: driver, endpoint: endpoint)
            do {
                let tokens = try await flow.run()
                XCTAssertEqual(consent, .approve, "a denied device got tokens")
                let userinfo = try await device.userinfo(accessToken: tokens.accessToken)
                XCTAssertNotNil(userinfo["sub"]?.string)
            } catch let error as OAuthError {
                XCTAssertEqual(consent, .deny, "\(error)")
                XCTAssertEqual(error.oauthErrorCode, "access_denied", "\(error)")
            }
        }
        let paths = try provider.requests().map(\.path)
        XCTAssertTrue(paths.contains("/o/device/") && paths.contains { $0.hasPrefix("/o/device-confirm/") }, "\(paths)")
    }

    /// The user-agent role: start at the relying party's login URL, sign in and consent at the
    /// provider, land back on the app greeting the user; a denial lands on the app's error.
    func testUserAgentRoleLandsBackOnTheApp() async throws {
        let provider = try idp()
        let start = URL(string: "https://origin.test:\(provider.port)/app/login")!
        let configuration = TestServers.configuration(hops: [TestServers.relayHop()])
        let result = try await UserAgentFlow(startURL: start, driver: alice).run(sessionConfiguration: configuration)
        XCTAssertEqual(result.pages.map { URLComponents(string: $0)?.path }, ["/accounts/login/", "/o/authorize/"])
        XCTAssertEqual(URLComponents(url: result.finalPage.url, resolvingAgainstBaseURL: false)?.path, "/app/")
        XCTAssertEqual(result.finalPage.text, "Welcome, alice@origin.test")
        var denying = alice
        denying.consent = .deny
        let denied = try await UserAgentFlow(startURL: start, driver: denying).run(sessionConfiguration: configuration)
        XCTAssertEqual(denied.finalPage.statusCode, 403)
        XCTAssertEqual(denied.finalPage.text, "Sign-in failed: access_denied")
    }

    /// A port on 127.0.0.1 that nothing listens on (bound, read, closed).
    static func unusedLoopbackPort() throws -> UInt16 {
        let socket = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in(sin_family: sa_family_t(AF_INET), sin_port: 0, sin_addr: in_addr(s_addr: inet_addr("127.0.0.1")), sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw TestServerError(description: "cannot bind a loopback port") }
        return UInt16(bigEndian: address.sin_port)
    }

    /// Connects to 127.0.0.1:`port`; throws when nothing accepts.
    static func connect(port: UInt16) throws {
        let socket = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in(sin_family: sa_family_t(AF_INET), sin_port: port.bigEndian, sin_addr: in_addr(s_addr: inet_addr("127.0.0.1")), sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else { throw TestServerError(description: "nothing listens on 127.0.0.1:\(port)") }
    }
}
