import Foundation
import HeadlessPage
import RelayFetch

/// Where a provider's endpoints are: from OIDC discovery (`issuer` +
/// `/.well-known/openid-configuration`) or given explicitly.
public struct ProviderMetadata: Sendable, Equatable {
    public var issuer: String
    public var authorizationEndpoint: URL?
    public var tokenEndpoint: URL?
    public var userinfoEndpoint: URL?
    public var jwksURI: URL?
    public var deviceAuthorizationEndpoint: URL?
    public var codeChallengeMethods: [String] = []

    public init(issuer: String, authorizationEndpoint: URL? = nil, tokenEndpoint: URL? = nil, userinfoEndpoint: URL? = nil,
                jwksURI: URL? = nil) {
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.userinfoEndpoint = userinfoEndpoint
        self.jwksURI = jwksURI
    }

    /// Fetches the discovery document through `session` and checks that its `issuer` is the
    /// one asked for (OIDC Discovery §4.3).
    public static func discover(issuer: String, session: Session, recorder: ExchangeRecorder? = nil) async throws -> ProviderMetadata {
        let trimmed = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        guard let url = URL(string: trimmed + "/.well-known/openid-configuration") else {
            throw OAuthError(.discovery("\"\(issuer)\" is not a URL"))
        }
        let (body, response) = try await session.data(for: HTTPRequest(url: url), recorder: recorder)
        guard response.statusCode == 200, let document = JSONValue.parse(body) else {
            throw OAuthError(.discovery("\(url.absoluteString) answered HTTP \(response.statusCode) without a JSON document"))
        }
        guard document["issuer"]?.string == issuer else {
            throw OAuthError(.discovery("the document's issuer \"\(document["issuer"]?.string ?? "")\" is not \"\(issuer)\""))
        }
        func endpoint(_ name: String) -> URL? { document[name]?.string.flatMap(URL.init(string:)) }
        var metadata = ProviderMetadata(issuer: issuer, authorizationEndpoint: endpoint("authorization_endpoint"),
                                        tokenEndpoint: endpoint("token_endpoint"), userinfoEndpoint: endpoint("userinfo_endpoint"),
                                        jwksURI: endpoint("jwks_uri"))
        metadata.deviceAuthorizationEndpoint = endpoint("device_authorization_endpoint")
        metadata.codeChallengeMethods = document["code_challenge_methods_supported"]?.array?.compactMap(\.string) ?? []
        return metadata
    }

    /// Fetches the provider's JWK Set through `session`.
    public func keys(session: Session, recorder: ExchangeRecorder? = nil) async throws -> JSONWebKeySet {
        guard let jwksURI else { throw OAuthError(.configuration("the provider has no jwks_uri")) }
        let (body, response) = try await session.data(for: HTTPRequest(url: jwksURI), recorder: recorder)
        guard response.statusCode == 200, let keys = JSONWebKeySet(json: body) else {
            throw OAuthError(.discovery("\(jwksURI.absoluteString) answered HTTP \(response.statusCode) without a JWK Set"))
        }
        return keys
    }
}
