import Foundation

/// The client as registered with the provider: its id, how it authenticates at the token
/// endpoint, and where the provider sends the user back.
public struct OAuthClientConfiguration: Sendable {
    /// Client authentication at the token endpoint (RFC 6749 §2.3, OIDC Core §9).
    public enum Authentication: Sendable {
        /// A public client: `client_id` in the body, no secret.
        case none
        /// HTTP Basic with the form-encoded id and secret.
        case clientSecretBasic(secret: String)
        /// `client_id` and `client_secret` in the body.
        case clientSecretPost(secret: String)
        /// A JWT signed with the client's private key as `client_assertion` (RFC 7523 §2.2,
        /// OIDC Core §9): `iss` and `sub` the client id, `aud` the token endpoint, a fresh `jti`,
        /// valid for 60 s.
        case privateKeyJWT(JWSSigningKey)
    }

    public var clientID: String
    public var authentication: Authentication
    public var redirectURI: URL
    public var scopes: [String]

    public init(clientID: String, authentication: Authentication = .none, redirectURI: URL, scopes: [String] = ["openid"]) {
        self.clientID = clientID
        self.authentication = authentication
        self.redirectURI = redirectURI
        self.scopes = scopes
    }
}

/// What the token endpoint returned (RFC 6749 §5.1).
public struct TokenResponse: Sendable {
    public let accessToken: String
    public let tokenType: String
    public let expiresIn: Double?
    public let refreshToken: String?
    public let idToken: String?
    /// The granted scopes (the requested ones when the response omits `scope`).
    public let scopes: [String]

    init(_ json: JSONValue, requestedScopes: [String]) throws(OAuthError) {
        guard let accessToken = json["access_token"]?.string else { throw OAuthError(.invalidTokenResponse("no access_token")) }
        guard let tokenType = json["token_type"]?.string else { throw OAuthError(.invalidTokenResponse("no token_type")) }
        self.accessToken = accessToken
        self.tokenType = tokenType
        expiresIn = json["expires_in"]?.number
        refreshToken = json["refresh_token"]?.string
        idToken = json["id_token"]?.string
        scopes = json["scope"]?.string.map { $0.split(separator: " ").map(String.init) } ?? requestedScopes
    }
}
