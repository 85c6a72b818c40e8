import Foundation
import HeadlessPage
import RelayFetch

/// The authorization code grant with PKCE, run headless: open the authorization URL, let a
/// `LoginDriver` sign in and consent, intercept the redirect to the client's redirect URI
/// (never requested), check `state` (and `iss`), exchange the code, and verify the ID token
/// (signature against the JWKS, `iss`, `aud`, `azp`, `exp`, `iat`, `nonce`, `at_hash`).
public struct AuthorizationCodeFlow: Sendable {
    public let client: OAuthClient
    public var driver: LoginDriver
    public var pkceMethod: PKCE.Method = .s256
    /// Pages the user agent may pass through before the redirect must have come.
    public var maximumPages = 8

    public init(client: OAuthClient, driver: LoginDriver) {
        self.client = client
        self.driver = driver
    }

    /// What the front channel yields: the code and what its exchange and checks need.
    public struct Authorization: Sendable {
        public let code: String
        public let pkce: PKCE
        public let nonce: String?
        /// The redirect as intercepted (it carries the code: never print it).
        public let callback: URL
        /// The URLs the user agent loaded, in order (queries redacted).
        public let pages: [String]
    }

    /// What a completed flow yields.
    public struct Result: Sendable {
        public let tokens: TokenResponse
        /// The verified ID token, when `openid` was asked for.
        public let idToken: IDToken?
        public let pages: [String]
    }

    /// The whole flow: `authorize()`, then `complete(_:)`.
    public func run() async throws -> Result {
        try await complete(try await authorize())
    }

    /// The front channel: opens the authorization URL, lets the driver sign in and consent, and
    /// intercepts the redirect (never requested); checks `state` and `iss`.
    public func authorize() async throws -> Authorization {
        let pkce = PKCE(method: pkceMethod)
        let state = OAuthRandom.token(16)
        let nonce = client.configuration.scopes.contains("openid") ? OAuthRandom.token(16) : nil
        let start = try client.authorizationURL(pkce: pkce, state: state, nonce: nonce)
        let navigator = Navigator(session: client.session, policy: .intercepting(redirectURI: client.configuration.redirectURI),
                                  recorder: client.recorder)
        var outcome = try await navigator.open(start)
        var pages: [String] = []
        var logins = 0
        while case .page(let page) = outcome {
            pages.append(LoginDriver.redacted(page.url))
            guard pages.count <= maximumPages else {
                throw OAuthError(.loginStuck(url: LoginDriver.redacted(page.url), reason: "still no redirect after \(maximumPages) pages"))
            }
            let (form, submitter) = try driver.action(on: page, loginsSoFar: logins, origins: client.provider.origins)
            if form.controls.contains(where: { $0.type == "password" }) {
                logins += 1
                outcome = try await LoginSubmission.submit(form, submitter: submitter, through: navigator, origins: client.provider.origins)
            } else {
                outcome = try await navigator.submit(form, submitter: submitter)
            }
        }
        guard let callback = outcome.interceptedURL else { throw OAuthError(.missingCode) }
        let code = try Self.code(from: callback, state: state, issuer: client.provider.issuer,
                                 requiresIssuer: client.provider.authorizationResponseIssParameterSupported)
        return Authorization(code: code, pkce: pkce, nonce: nonce, callback: callback, pages: pages)
    }

    /// The back channel: exchanges the code with its PKCE verifier and verifies the ID token.
    public func complete(_ authorization: Authorization) async throws -> Result {
        // The JWKS is fetched for each token, so a key the provider rotated in is always there;
        // while the token request is in flight, so it costs no round trip of its own.
        async let keys = authorization.nonce == nil ? nil : Self.keys(of: client)
        let tokens = try await client.exchange(code: authorization.code, verifier: authorization.pkce.verifier)
        guard let nonce = authorization.nonce else { return Result(tokens: tokens, idToken: nil, pages: authorization.pages) }
        guard let raw = tokens.idToken else { throw OAuthError(.invalidTokenResponse("no id_token for an openid request")) }
        guard let keySet = try await keys else { throw OAuthError(.discovery("no JWKS")) }
        let idToken = try validator(keySet).validate(raw, nonce: nonce, accessToken: tokens.accessToken, code: authorization.code)
        return Result(tokens: tokens, idToken: idToken, pages: authorization.pages)
    }

    /// The refresh token grant after `result`: an ID token in the answer is verified as at login
    /// (signature, `iss`, `aud`, `azp`, `exp`, `iat`, `at_hash`) and must name the same issuer,
    /// subject, audiences and authorized party as `result`'s (OIDC Core §12.2).
    public func refresh(after result: Result) async throws -> Result {
        guard let refreshToken = result.tokens.refreshToken else { throw OAuthError(.invalidTokenResponse("no refresh_token")) }
        let tokens = try await client.refresh(refreshToken)
        guard let raw = tokens.idToken else { return Result(tokens: tokens, idToken: nil, pages: []) }
        let validator = validator(try await client.keys())
        let idToken: IDToken
        if let original = result.idToken {
            idToken = try validator.validateRefreshed(raw, original: original, accessToken: tokens.accessToken)
        } else {
            idToken = try validator.validate(raw, nonce: nil, accessToken: tokens.accessToken)
        }
        return Result(tokens: tokens, idToken: idToken, pages: [])
    }

    private static func keys(of client: OAuthClient) async throws -> JSONWebKeySet? { try await client.keys() }

    /// The ID token checks for this client and provider.
    public func validator(_ keys: JSONWebKeySet) -> IDTokenValidator {
        IDTokenValidator(issuer: client.provider.issuer, clientID: client.configuration.clientID, keys: keys)
    }

    /// The code from the redirect, after the checks RFC 6749 §10.12 and RFC 9207 ask for: `iss`,
    /// when present, must be the issuer, and must be present when the provider's metadata says
    /// it is sent (`requiresIssuer`).
    static func code(from callback: URL, state: String, issuer: String, requiresIssuer: Bool = false) throws(OAuthError) -> String {
        let items = URLComponents(url: callback, resolvingAgainstBaseURL: false)?.queryItems ?? []
        func value(_ name: String) -> String? { items.first { $0.name == name }?.value }
        guard value("state") == state else { throw OAuthError(.stateMismatch) }
        if let iss = value("iss"), iss != issuer { throw OAuthError(.issuerMismatch(iss)) }
        if requiresIssuer, value("iss") == nil { throw OAuthError(.missingIssuer) }
        if let error = value("error") { throw OAuthError(.authorizationDenied(error: error, description: value("error_description"))) }
        guard let code = value("code"), !code.isEmpty else { throw OAuthError(.missingCode) }
        return code
    }
}
