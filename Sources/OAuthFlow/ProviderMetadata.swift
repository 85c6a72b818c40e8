import Foundation
import HeadlessPage
import RelayFetch

/// Where a provider's endpoints are: from OIDC discovery (`issuer` +
/// `/.well-known/openid-configuration`) or given explicitly, and which origins are the provider's
/// (`origins`: the issuer's and `otherOrigins`).
public struct ProviderMetadata: Sendable, Equatable {
    public var issuer: String
    /// Origins besides the issuer's that belong to the provider (a separate login, token or JWKS
    /// host): only https ones count.
    public var otherOrigins: [URL] = []
    /// The metadata's `authorization_response_iss_parameter_supported`: the authorization
    /// response must then carry `iss` (RFC 9207 §2.4).
    public var authorizationResponseIssParameterSupported = false
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

    /// Where the password, the user code and endpoints may go.
    public var origins: ProviderOrigins { ProviderOrigins(issuer: issuer, others: otherOrigins) }

    /// Fetches the discovery document through `session` (following no redirect off the issuer's
    /// origin), checks that its `issuer` is the one asked for (OIDC Discovery §4.3) and that every
    /// endpoint is https on one of the provider's origins (the issuer's and `otherOrigins`).
    public static func discover(issuer: String, otherOrigins: [URL] = [], session: Session,
                                recorder: ExchangeRecorder? = nil) async throws -> ProviderMetadata {
        let trimmed = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        guard let url = URL(string: trimmed + "/.well-known/openid-configuration") else {
            throw OAuthError(.discovery("\"\(issuer)\" is not a URL"))
        }
        guard ProviderOrigins.origin(url) != nil else {
            throw OAuthError(.discovery("the issuer \(issuer) is not an https URL (OIDC Discovery §3)"))
        }
        let (body, response) = try await ProviderDocument.fetch(url, session: session, recorder: recorder)
        guard response.statusCode == 200, let document = JSONValue.parse(body) else {
            throw OAuthError(.discovery("\(url.absoluteString) answered HTTP \(response.statusCode) without a JSON document"))
        }
        guard document["issuer"]?.string == issuer else {
            throw OAuthError(.discovery("the document's issuer \"\(document["issuer"]?.string ?? "")\" is not \"\(issuer)\""))
        }
        let origins = ProviderOrigins(issuer: issuer, others: otherOrigins)
        func endpoint(_ name: String) throws(OAuthError) -> URL? {
            guard let text = document[name]?.string else { return nil }
            guard let url = URL(string: text) else { throw OAuthError(.discovery("\(name) \"\(text)\" is not a URL")) }
            try origins.require(url, for: "discovery: \(name) is")
            return url
        }
        var metadata = ProviderMetadata(issuer: issuer, authorizationEndpoint: try endpoint("authorization_endpoint"),
                                        tokenEndpoint: try endpoint("token_endpoint"), userinfoEndpoint: try endpoint("userinfo_endpoint"),
                                        jwksURI: try endpoint("jwks_uri"))
        metadata.otherOrigins = otherOrigins
        metadata.deviceAuthorizationEndpoint = try endpoint("device_authorization_endpoint")
        metadata.codeChallengeMethods = document["code_challenge_methods_supported"]?.array?.compactMap(\.string) ?? []
        metadata.authorizationResponseIssParameterSupported = document["authorization_response_iss_parameter_supported"] == .bool(true)
        return metadata
    }

    /// Fetches the provider's JWK Set through `session`, following no redirect off its origin.
    public func keys(session: Session, recorder: ExchangeRecorder? = nil) async throws -> JSONWebKeySet {
        guard let jwksURI else { throw OAuthError(.configuration("the provider has no jwks_uri")) }
        let (body, response) = try await ProviderDocument.fetch(jwksURI, session: session, recorder: recorder)
        guard response.statusCode == 200, let keys = JSONWebKeySet(json: body) else {
            throw OAuthError(.discovery("\(jwksURI.absoluteString) answered HTTP \(response.statusCode) without a JWK Set"))
        }
        return keys
    }
}
