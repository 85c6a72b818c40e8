import Foundation
import HeadlessPage
import RelayFetch

/// One client talking to one provider in a fresh ephemeral session of its own (a memory-only
/// store, like `prefersEphemeralWebBrowserSession`), every request through the configured
/// relays: discovery, the token endpoint (code, refresh and client credentials grants), JWKS
/// and userinfo. Call `invalidate()` when done.
public final class OAuthClient: Sendable {
    /// Where the provider's endpoints come from.
    public enum Provider: Sendable {
        /// OIDC discovery from the issuer URL.
        case issuer(String)
        /// Endpoints given explicitly.
        case endpoints(ProviderMetadata)
    }

    public let session: Session
    public let configuration: OAuthClientConfiguration
    public let provider: ProviderMetadata
    /// Keeps every exchange of the flows this client runs, when given (for HAR).
    public let recorder: ExchangeRecorder?

    /// Starts a fresh session from `sessionConfiguration` (its relays and trust; the data store
    /// is replaced by a new non-persistent one) and resolves the provider's endpoints in it.
    /// `otherOrigins` are the provider's besides the issuer's (see `ProviderOrigins`).
    public static func connect(to provider: Provider, client: OAuthClientConfiguration, sessionConfiguration: Session.Configuration,
                               otherOrigins: [URL] = [], recorder: ExchangeRecorder? = nil) async throws -> OAuthClient {
        var configuration = sessionConfiguration
        configuration.dataStore = .nonPersistent()
        let session = try Session(configuration: configuration)
        do {
            let metadata: ProviderMetadata
            switch provider {
            case .issuer(let issuer):
                metadata = try await ProviderMetadata.discover(issuer: issuer, otherOrigins: otherOrigins, session: session, recorder: recorder)
            case .endpoints(var given):
                given.otherOrigins += otherOrigins
                metadata = given
            }
            return OAuthClient(session: session, configuration: client, provider: metadata, recorder: recorder)
        } catch {
            session.invalidate()
            throw error
        }
    }

    init(session: Session, configuration: OAuthClientConfiguration, provider: ProviderMetadata, recorder: ExchangeRecorder?) {
        self.session = session
        self.configuration = configuration
        self.provider = provider
        self.recorder = recorder
    }

    /// Ends the session.
    public func invalidate() { session.invalidate() }

    /// The authorization request URL (RFC 6749 §4.1.1 with PKCE, OIDC `nonce` when given).
    public func authorizationURL(pkce: PKCE, state: String, nonce: String?, extra: [(String, String)] = []) throws(OAuthError) -> URL {
        guard let endpoint = provider.authorizationEndpoint,
              var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false) else {
            throw OAuthError(.configuration("the provider has no authorization endpoint"))
        }
        var entries = [FormEntry("response_type", "code"), FormEntry("client_id", configuration.clientID),
                       FormEntry("redirect_uri", configuration.redirectURI.absoluteString),
                       FormEntry("scope", configuration.scopes.joined(separator: " ")), FormEntry("state", state),
                       FormEntry("code_challenge", pkce.challenge), FormEntry("code_challenge_method", pkce.method.rawValue)]
        if let nonce { entries.append(FormEntry("nonce", nonce)) }
        entries += extra.map { FormEntry($0.0, $0.1) }
        let existing = components.percentEncodedQuery.map { $0 + "&" } ?? ""
        components.percentEncodedQuery = existing + FormBodyEncoder.urlEncoded(entries)
        guard let url = components.url else { throw OAuthError(.configuration("bad authorization endpoint")) }
        return url
    }

    /// Exchanges an authorization code (with its PKCE verifier) for tokens.
    public func exchange(code: String, verifier: String) async throws -> TokenResponse {
        try await tokenRequest([("grant_type", "authorization_code"), ("code", code),
                                ("redirect_uri", configuration.redirectURI.absoluteString), ("code_verifier", verifier)])
    }

    /// The refresh token grant (RFC 6749 §6).
    public func refresh(_ refreshToken: String, scopes: [String]? = nil) async throws -> TokenResponse {
        var parameters = [("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
        if let scopes { parameters.append(("scope", scopes.joined(separator: " "))) }
        return try await tokenRequest(parameters, requestedScopes: scopes ?? configuration.scopes)
    }

    /// The client credentials grant (RFC 6749 §4.4); needs a confidential client.
    public func clientCredentials(scopes: [String]? = nil) async throws -> TokenResponse {
        let scopes = scopes ?? configuration.scopes
        return try await tokenRequest([("grant_type", "client_credentials"), ("scope", scopes.joined(separator: " "))],
                                      requestedScopes: scopes)
    }

    /// The userinfo claims for an access token (OIDC Core §5.3).
    public func userinfo(accessToken: String) async throws -> JSONValue {
        guard let endpoint = provider.userinfoEndpoint else { throw OAuthError(.configuration("the provider has no userinfo endpoint")) }
        var request = HTTPRequest(url: endpoint, headerFields: [("Authorization", "Bearer \(accessToken)"), ("Accept", "application/json")])
        request.followsRedirects = false
        let (body, response) = try await session.data(for: request, recorder: recorder)
        guard response.statusCode == 200, let claims = JSONValue.parse(body), claims.object != nil else {
            throw OAuthError(.userinfo("HTTP \(response.statusCode) without a JSON object"))
        }
        return claims
    }

    /// The provider's JWK Set, fetched through the relays.
    public func keys() async throws -> JSONWebKeySet { try await provider.keys(session: session, recorder: recorder) }

    /// The signed client assertion for `private_key_jwt`.
    static func clientAssertion(_ key: JWSSigningKey, clientID: String, audience: URL, now: Date = Date()) throws(OAuthError) -> String {
        let issuedAt = now.timeIntervalSince1970.rounded(.down)
        return try key.sign(claims: .object([
            "iss": .string(clientID), "sub": .string(clientID), "aud": .string(audience.absoluteString),
            "jti": .string(OAuthRandom.token(16)), "iat": .number(issuedAt), "exp": .number(issuedAt + 60),
        ]))
    }

    /// POSTs a token request with the client's authentication; throws `tokenEndpoint` with the
    /// provider's OAuth error on any non-200 answer.
    func tokenRequest(_ parameters: [(String, String)], requestedScopes: [String]? = nil) async throws -> TokenResponse {
        guard let endpoint = provider.tokenEndpoint else { throw OAuthError(.configuration("the provider has no token endpoint")) }
        var entries = parameters.map { FormEntry($0.0, $0.1) }
        var headers = [("Content-Type", FormEncoding.urlEncoded.rawValue), ("Accept", "application/json")]
        switch configuration.authentication {
        case .none:
            entries.append(FormEntry("client_id", configuration.clientID))
        case .clientSecretPost(let secret):
            entries += [FormEntry("client_id", configuration.clientID), FormEntry("client_secret", secret)]
        case .clientSecretBasic(let secret):
            // RFC 6749 §2.3.1: each part form-encoded (so neither holds a literal "=") before Base64.
            let pair = FormBodyEncoder.urlEncoded([FormEntry(configuration.clientID, secret)]).replacingOccurrences(of: "=", with: ":")
            headers.append(("Authorization", "Basic " + Data(pair.utf8).base64EncodedString()))
        case .privateKeyJWT(let key):
            entries += [FormEntry("client_id", configuration.clientID),
                        FormEntry("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"),
                        FormEntry("client_assertion", try Self.clientAssertion(key, clientID: configuration.clientID, audience: endpoint))]
        }
        var request = HTTPRequest(url: endpoint, method: "POST", headerFields: HTTPFields(headers.map { (name: $0.0, value: $0.1) }),
                                  body: Data(FormBodyEncoder.urlEncoded(entries).utf8))
        request.followsRedirects = false
        let (body, response) = try await session.data(for: request, recorder: recorder)
        let json = JSONValue.parse(body)
        guard response.statusCode == 200, let json else {
            throw OAuthError(.tokenEndpoint(status: response.statusCode, error: json?["error"]?.string,
                                            description: json?["error_description"]?.string))
        }
        return try TokenResponse(json, requestedScopes: requestedScopes ?? configuration.scopes)
    }
}
