import Foundation
import XCTest
import HeadlessPage
@testable import OAuthFlow
import RelayFetch
import RelayFetchTestSupport

/// Whole OAuth / OpenID Connect flows against a real identity provider (django-oauth-toolkit at
/// https://idp.test, started by scripts/test-servers.sh), every request through relay A then
/// relay B, each flow in a fresh ephemeral session: login and consent forms, the intercepted
/// redirect, the code exchange, the ID token's signature and claims, userinfo, refresh, client
/// credentials, the device grant, the user-agent role, and the negative cases by name.
final class OAuthFlowEndToEndTests: XCTestCase {
    private func client(_ id: String, _ authentication: OAuthClientConfiguration.Authentication = .none,
                        redirect: String = "com.example.app:/callback", scopes: [String] = ["openid", "email"]) async throws -> OAuthClient {
        let configuration = OAuthClientConfiguration(clientID: id, authentication: authentication,
                                                     redirectURI: URL(string: redirect)!, scopes: scopes)
        return try await OAuthClient.connect(to: .issuer(IdentityProvider.issuer), client: configuration,
                                             sessionConfiguration: try IdentityProvider.configuration())
    }

    private var alice: LoginDriver { LoginDriver(username: IdentityProvider.username, password: IdentityProvider.password) }

    func testPublicClientLogsInConsentsAndRefreshesThroughTheChain() async throws {
        let earlier = try IdentityProvider.requests().count
        let client = try await client(IdentityProvider.publicClientID)
        defer { client.invalidate() }
        let flow = AuthorizationCodeFlow(client: client, driver: alice)
        let result = try await flow.run()
        XCTAssertEqual(result.pages.map { URLComponents(string: $0)?.path }, ["/accounts/login/", "/o/authorize/"], "login, then consent")
        let idToken = try XCTUnwrap(result.idToken)
        XCTAssertEqual(idToken.issuer, IdentityProvider.issuer)
        XCTAssertEqual(idToken.audiences, [IdentityProvider.publicClientID])
        XCTAssertNotNil(idToken.nonce)
        let subject = try XCTUnwrap(idToken.subject)
        XCTAssertEqual(result.tokens.tokenType.lowercased(), "bearer")
        XCTAssertEqual(Set(result.tokens.scopes), ["openid", "email"])

        let userinfo = try await client.userinfo(accessToken: result.tokens.accessToken)
        XCTAssertEqual(userinfo["sub"]?.string, subject)
        XCTAssertEqual(userinfo["email"]?.string, "alice@origin.test")

        // django-oauth-toolkit sends a new ID token on refresh: it must be there, verified, and
        // name the same issuer, subject and audience as the first (OIDC Core §12.2).
        let refreshed = try await flow.refresh(after: result)
        XCTAssertNotEqual(refreshed.tokens.accessToken, result.tokens.accessToken)
        let again = try XCTUnwrap(refreshed.idToken, "the provider sent no ID token on refresh: the checks below prove nothing")
        XCTAssertNotEqual(again.raw, idToken.raw, "the refreshed ID token is the old one")
        XCTAssertEqual(again.subject, subject)
        XCTAssertEqual(again.issuer, IdentityProvider.issuer)
        XCTAssertEqual(again.audiences, [IdentityProvider.publicClientID])
        let after = try await client.userinfo(accessToken: refreshed.tokens.accessToken)
        XCTAssertEqual(after["sub"]?.string, subject)

        // The provider saw every request of this flow from relay B's address, never a token.
        let requests = Array(try IdentityProvider.requests().dropFirst(earlier))
        XCTAssertTrue(requests.contains { $0.method == "POST" && $0.path == "/accounts/login/" }, "\(requests)")
        XCTAssertTrue(requests.contains { $0.method == "POST" && $0.path == "/o/token/" })
        XCTAssertEqual(Set(requests.map(\.clientAddress)), ["127.0.0.12"])
        XCTAssertFalse(requests.contains { $0.hadProxyAuthorization || $0.hadRelayToken })
    }

    /// The provider's own log, whole: not empty, and every request in it (from every OAuth test
    /// so far) came from relay B's address; none carried a relay token. Relay A's log shows the
    /// tunnels to relay B and never the provider's name; relay B's shows the provider's.
    func testProviderLogShowsOnlyRelayB() async throws {
        let relayASawItBefore = try TestServers.logLines(TestServers.relayLog, containing: "idp.test").count
        let client = try await client(IdentityProvider.publicClientID)
        let result = try await AuthorizationCodeFlow(client: client, driver: alice).run()
        _ = try await client.userinfo(accessToken: result.tokens.accessToken)
        client.invalidate()
        let requests = try IdentityProvider.requests()
        XCTAssertGreaterThanOrEqual(requests.count, 7, "the provider's log is too short to prove anything: \(requests)")
        XCTAssertEqual(requests.filter { $0.clientAddress != "127.0.0.12" }, [], "requests that did not come from relay B")
        XCTAssertFalse(requests.contains { $0.hadProxyAuthorization || $0.hadRelayToken })
        let viaB = try TestServers.waitForLogLines(TestServers.relayBLog, containing: "idp.test:443\t", skipping: 0)
        XCTAssertFalse(viaB.isEmpty, "relay B logged no tunnel to idp.test")
        XCTAssertEqual(try TestServers.logLines(TestServers.relayLog, containing: "idp.test").count, relayASawItBefore,
                       "relay A saw the provider's name")
    }

    /// A loopback redirect URI on a port nothing listens on: the flow completes, and relay B's
    /// log (which does show this flow's tunnels to the provider) has no tunnel to that port.
    func testLoopbackRedirectIsInterceptedAndNeverDialled() async throws {
        let port = try Self.unusedLoopbackPort()
        // The relay logs are shared by the whole suite and never truncated: only lines this test
        // adds can count, and only a tunnel to this very address and port.
        let target = "127.0.0.1:\(port)\t"
        let before = try [TestServers.relayLog, TestServers.relayBLog].map { try TestServers.logLines($0, containing: target).count }
        let client = try await client(IdentityProvider.confidentialClientID,
                                      .clientSecretBasic(secret: IdentityProvider.confidentialClientSecret),
                                      redirect: "http://127.0.0.1:\(port)/callback")
        let result = try await AuthorizationCodeFlow(client: client, driver: alice).run()
        client.invalidate()
        XCTAssertEqual(result.pages.map { URLComponents(string: $0)?.path }, ["/accounts/login/"], "consent is skipped for this client")
        XCTAssertEqual(result.idToken?.audiences, [IdentityProvider.confidentialClientID])
        let tunnels = try TestServers.waitForLogLines(TestServers.relayBLog, containing: "idp.test:443\t", skipping: 0)
        XCTAssertFalse(tunnels.isEmpty, "relay B logged no tunnel to the provider: the log cannot prove anything")
        for (log, seen) in zip([TestServers.relayLog, TestServers.relayBLog], before) {
            XCTAssertEqual(try TestServers.logLines(log, containing: target).count, seen, "the redirect URI was dialled")
        }
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
            guard case .loginStuck(_, let reason) = error.detail else { return XCTFail("\(error)") }
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
            XCTAssertEqual(error.detail, .tokenEndpoint(status: 400, error: "invalid_grant", description: nil))
        }
        let second = try await flow.authorize()
        // The real redirect with its state changed in flight: refused before any code is used.
        var tampered = try XCTUnwrap(URLComponents(url: second.callback, resolvingAgainstBaseURL: false))
        let sent = try XCTUnwrap(tampered.queryItems?.first { $0.name == "state" }?.value)
        tampered.queryItems = tampered.queryItems?.map { $0.name == "state" ? URLQueryItem(name: "state", value: sent + "x") : $0 }
        XCTAssertThrowsError(try AuthorizationCodeFlow.code(from: try XCTUnwrap(tampered.url), state: sent, issuer: IdentityProvider.issuer)) {
            XCTAssertEqual($0 as? OAuthError, OAuthError(.stateMismatch))
        }
        XCTAssertEqual(try AuthorizationCodeFlow.code(from: second.callback, state: sent, issuer: IdentityProvider.issuer), second.code)
        let result = try await flow.complete(second)
        do {
            _ = try await flow.complete(second)
            XCTFail("a replayed code must be refused")
        } catch let error as OAuthError {
            XCTAssertEqual(error.detail, .tokenEndpoint(status: 400, error: "invalid_grant", description: nil))
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
                guard case .idToken(let check) = error.detail else { return nil }
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
        validator.issuer = "https://idp.test/other"
        guard case .issuer? = failure(validator) else { return XCTFail("issuer not checked") }
        validator = flow.validator(keys)
        validator.clientID = IdentityProvider.publicClientID
        XCTAssertEqual(failure(validator), .audience(expected: IdentityProvider.publicClientID, actual: [IdentityProvider.confidentialClientID]))
    }

    /// RFC 8628: the user signs in and approves in a second ephemeral session while the client
    /// polls; a denial ends the poll with access_denied.
    func testDeviceAuthorizationGrantApprovedAndDenied() async throws {
        let endpoint = URL(string: IdentityProvider.issuer + "/device-authorization/")!
        for consent in [LoginDriver.Consent.approve, .deny] {
            let device = try await client(IdentityProvider.deviceClientID, scopes: ["openid", "read"])
            defer { device.invalidate() }
            var driver = alice
            driver.consent = consent
            driver.approveButton = "Accept"
            driver.denyButton = "Deny"
            let flow = DeviceAuthorizationFlow(client: device, driver: driver, endpoint: endpoint)
            do {
                let result = try await flow.run()
                XCTAssertEqual(consent, .approve, "a denied device got tokens")
                let userinfo = try await device.userinfo(accessToken: result.tokens.accessToken)
                XCTAssertNotNil(userinfo["sub"]?.string)
            } catch let error as OAuthError {
                XCTAssertEqual(consent, .deny, "\(error)")
                XCTAssertEqual(error.oauthErrorCode, "access_denied", "\(error)")
            }
        }
        let paths = try IdentityProvider.requests().map(\.path)
        XCTAssertTrue(paths.contains("/o/device/") && paths.contains { $0.hasPrefix("/o/device-confirm/") }, "\(paths)")
    }

    /// The user-agent role: start at the relying party's login URL, sign in and consent at the
    /// provider, land back on the app greeting the user; a denial lands on the app's error.
    func testUserAgentRoleLandsBackOnTheApp() async throws {
        let start = URL(string: IdentityProvider.origin + "/app/login")!
        let configuration = try IdentityProvider.configuration()
        let provider = ProviderOrigins(issuer: IdentityProvider.issuer)
        let result = try await UserAgentFlow(startURL: start, driver: alice, providerOrigins: provider).run(sessionConfiguration: configuration)
        XCTAssertEqual(result.pages.map { URLComponents(string: $0)?.path }, ["/accounts/login/", "/o/authorize/"])
        XCTAssertEqual(URLComponents(url: result.finalPage.url, resolvingAgainstBaseURL: false)?.path, "/app/")
        XCTAssertEqual(result.finalPage.text, "Welcome, alice@origin.test")
        var denying = alice
        denying.consent = .deny
        let denied = try await UserAgentFlow(startURL: start, driver: denying, providerOrigins: provider).run(sessionConfiguration: configuration)
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
