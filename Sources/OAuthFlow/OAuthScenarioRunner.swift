import Foundation
import HeadlessPage
import RelayFetch

/// Runs one `OAuthScenario` in its own ephemeral session and reports each step with its
/// timing, then one verdict. Failures are `OAuthError` descriptions, which carry no secrets.
public enum OAuthScenarioRunner {
    /// One step: what ran, how long it took, what it found.
    public struct Step: Sendable {
        public let name: String
        public let seconds: Double
        public let detail: String
    }

    /// A scenario's verdict: nil failure means it passed.
    public struct Verdict: Sendable {
        public let name: String
        public let steps: [Step]
        public let failure: String?
        public let seconds: Double
        /// Every request and response, in order (secrets in them: redact before writing).
        public let exchanges: [HTTPExchange]
        public var passed: Bool { failure == nil }
    }

    /// Runs `scenario`; `onStep` sees each step as it completes.
    public static func run(_ scenario: OAuthScenario, sessionConfiguration: Session.Configuration,
                           onStep: @Sendable (Step) -> Void = { _ in }) async -> Verdict {
        let started = Date()
        var steps: [Step] = []
        func record(_ name: String, since: Date, _ detail: String) {
            let step = Step(name: name, seconds: Date().timeIntervalSince(since), detail: detail)
            steps.append(step)
            onStep(step)
        }
        var failure: String?
        let recorder = ExchangeRecorder()
        do {
            try await perform(scenario, sessionConfiguration: sessionConfiguration, recorder: recorder, record: record)
            if let expected = scenario.expect?.error { failure = "expected the OAuth error \(expected), but the flow succeeded" }
        } catch let error as OAuthError {
            if let expected = scenario.expect?.error, error.oauthErrorCode == expected {
                record("expected error", since: Date(), expected)
            } else {
                failure = error.description
            }
        } catch {
            failure = "\(error)"
        }
        return Verdict(name: scenario.name, steps: steps, failure: failure, seconds: Date().timeIntervalSince(started),
                       exchanges: recorder.exchanges)
    }

    private static func perform(_ scenario: OAuthScenario, sessionConfiguration: Session.Configuration, recorder: ExchangeRecorder,
                                record: (String, Date, String) -> Void) async throws {
        var mark = Date()
        if let start = scenario.startURL.flatMap(URL.init(string:)) {
            let result = try await UserAgentFlow(startURL: start, driver: driver(scenario),
                                                 providerOrigins: ProviderOrigins(issuer: nil, others: scenario.otherOrigins))
                .run(sessionConfiguration: sessionConfiguration, recorder: recorder)
            let page = result.finalPage
            record("login", mark, "landed on \(LoginDriver.redacted(page.url)) (HTTP \(page.statusCode)) after "
                   + result.pages.compactMap { URLComponents(string: $0)?.path }.joined(separator: " -> "))
            try check(page, scenario.expect)
            return
        }
        let client = try await OAuthClient.connect(to: provider(scenario), client: try clientConfiguration(scenario),
                                                   sessionConfiguration: sessionConfiguration, otherOrigins: scenario.otherOrigins,
                                                   recorder: recorder)
        defer { client.invalidate() }
        record(scenario.issuer != nil ? "discovery" : "endpoints", mark, client.provider.issuer)
        if scenario.grant == "client_credentials" {
            mark = Date()
            let tokens = try await client.clientCredentials()
            record("token", mark, "client_credentials: \(tokens.tokenType), scopes \(tokens.scopes.joined(separator: " "))")
            try check(tokens, scenario.expect)
            return
        }
        if scenario.grant == "device_code" {
            mark = Date()
            var driver = driver(scenario)
            if scenario.login?.approveButton == nil { driver.approveButton = "Accept" }
            if scenario.login?.denyButton == nil { driver.denyButton = "Deny" }
            let flow = DeviceAuthorizationFlow(client: client, driver: driver,
                                               endpoint: scenario.deviceAuthorizationEndpoint.flatMap(URL.init(string:)))
            let result = try await flow.run()
            record("device grant", mark, "user approved in a second session; \(result.tokens.tokenType), scopes "
                   + result.tokens.scopes.joined(separator: " ") + (result.idToken != nil ? ", ID token verified" : ""))
            try check(result.tokens, scenario.expect)
            return
        }
        var flow = AuthorizationCodeFlow(client: client, driver: driver(scenario))
        flow.pkceMethod = scenario.pkce == "plain" ? .plain : .s256
        mark = Date()
        let authorization = try await flow.authorize()
        record("authorize", mark, "code received after \(authorization.pages.count) page(s): "
               + authorization.pages.compactMap { URLComponents(string: $0)?.path }.joined(separator: " -> "))
        mark = Date()
        let result = try await flow.complete(authorization)
        record("token", mark, "\(result.tokens.tokenType), scopes \(result.tokens.scopes.joined(separator: " "))"
               + (result.idToken != nil ? ", ID token verified (signature, iss, aud, exp, iat, nonce)" : ""))
        try check(result.tokens, scenario.expect)
        if let expected = scenario.expect?.claims {
            for (claim, value) in expected.sorted(by: { $0.key < $1.key }) where result.idToken?.claims[claim]?.string != value {
                throw OAuthError(.expectation("ID token claim \(claim) to be \"\(value)\""))
            }
        }
        if scenario.userinfo == true {
            mark = Date()
            let claims = try await client.userinfo(accessToken: result.tokens.accessToken)
            if let subject = result.idToken?.subject, claims["sub"]?.string != subject {
                throw OAuthError(.userinfo("sub \(claims["sub"]?.string ?? "missing") is not the ID token's"))
            }
            record("userinfo", mark, "sub \(claims["sub"]?.string ?? "missing")")
        }
        if scenario.refresh == true {
            mark = Date()
            let refreshed = try await flow.refresh(after: result)
            record("refresh", mark, "new \(refreshed.tokens.tokenType) token"
                   + (refreshed.idToken != nil ? ", ID token verified (same iss, sub, aud as at login)" : ""))
        }
    }

    private static func check(_ page: Page, _ expect: OAuthScenario.Expect?) throws(OAuthError) {
        if let status = expect?.status, page.statusCode != status {
            throw OAuthError(.expectation("status \(status), got \(page.statusCode)"))
        }
        if let text = expect?.text, !page.text.contains(text) {
            throw OAuthError(.expectation("the final page to contain \"\(text)\""))
        }
        if let pattern = expect?.urlPattern, let expression = try? NSRegularExpression(pattern: pattern) {
            let url = page.url.absoluteString
            guard expression.firstMatch(in: url, range: NSRange(url.startIndex..., in: url)) != nil else {
                throw OAuthError(.expectation("the final URL to match \(pattern), got \(LoginDriver.redacted(page.url))"))
            }
        }
    }

    private static func check(_ tokens: TokenResponse, _ expect: OAuthScenario.Expect?) throws(OAuthError) {
        if let type = expect?.tokenType, tokens.tokenType.lowercased() != type.lowercased() {
            throw OAuthError(.expectation("token_type \(type), got \(tokens.tokenType)"))
        }
        if let scopes = expect?.scopes, !Set(scopes).isSubset(of: tokens.scopes) {
            throw OAuthError(.expectation("scopes \(scopes), got \(tokens.scopes)"))
        }
    }

    static func provider(_ scenario: OAuthScenario) -> OAuthClient.Provider {
        if let issuer = scenario.issuer { return .issuer(issuer) }
        let endpoints = scenario.endpoints!
        return .endpoints(ProviderMetadata(issuer: endpoints.issuer, authorizationEndpoint: endpoints.authorization.flatMap(URL.init(string:)),
                                           tokenEndpoint: URL(string: endpoints.token), userinfoEndpoint: endpoints.userinfo.flatMap(URL.init(string:)),
                                           jwksURI: endpoints.jwks.flatMap(URL.init(string:))))
    }

    static func clientConfiguration(_ scenario: OAuthScenario) throws -> OAuthClientConfiguration {
        let client = scenario.client!
        let secret = client.secret ?? ""
        let authentication: OAuthClientConfiguration.Authentication
        switch client.auth ?? "none" {
        case "client_secret_basic": authentication = .clientSecretBasic(secret: secret)
        case "client_secret_post": authentication = .clientSecretPost(secret: secret)
        case "private_key_jwt":
            let pem = FileManager.default.contents(atPath: client.privateKeyFile ?? "") ?? Data()
            authentication = .privateKeyJWT(try JWSSigningKey(pem: pem, keyID: client.keyID))
        default: authentication = .none
        }
        return OAuthClientConfiguration(clientID: client.id, authentication: authentication,
                                        redirectURI: URL(string: scenario.redirectURI ?? "urn:ietf:wg:oauth:2.0:oob")!,
                                        scopes: scenario.scopes ?? ["openid"])
    }

    static func driver(_ scenario: OAuthScenario) -> LoginDriver {
        let login = scenario.login!
        var driver = LoginDriver(username: login.username, password: login.password, consent: login.consent == "deny" ? .deny : .approve)
        if let approve = login.approveButton { driver.approveButton = approve }
        if let deny = login.denyButton { driver.denyButton = deny }
        return driver
    }
}
