import Foundation

/// One flow to run and what to expect of it, read from a JSON scenario file. Any string may be
/// `${env:NAME}`: the value comes from the environment and counts as a secret (never printed).
public struct OAuthScenario: Decodable, Sendable {
    public struct Endpoints: Decodable, Sendable {
        public var issuer: String
        public var authorization: String?
        public var token: String
        public var userinfo: String?
        public var jwks: String?
    }

    public struct Client: Decodable, Sendable {
        public var id: String
        public var secret: String?
        /// none (default), client_secret_basic, client_secret_post or private_key_jwt.
        public var auth: String?
        /// The PEM private key for private_key_jwt (RSA, EC P-256 or Ed25519).
        public var privateKeyFile: String?
        /// The `kid` of that key at the provider.
        public var keyID: String?
    }

    public struct Login: Decodable, Sendable {
        public var username: String
        public var password: String
        /// approve (default) or deny.
        public var consent: String?
        public var approveButton: String?
        public var denyButton: String?
    }

    public struct Expect: Decodable, Sendable {
        /// An OAuth error the flow must end with (e.g. access_denied, invalid_client).
        public var error: String?
        public var tokenType: String?
        /// Scopes the token must carry.
        public var scopes: [String]?
        /// ID token claims that must have these string values.
        public var claims: [String: String]?
        /// User-agent role: text the final page must contain.
        public var text: String?
        /// User-agent role: a regular expression the final page's URL must match.
        public var urlPattern: String?
        /// User-agent role: the final page's status.
        public var status: Int?
    }

    public var name: String
    public var issuer: String?
    /// Origins besides the issuer's that belong to the provider (`https://login.example.com`):
    /// a separate login host, token or JWKS host. The password and the device grant's user code
    /// go only to the issuer's origin and these, and discovered endpoints must be on them. The
    /// user-agent role has no issuer: it needs these to know where the password may go.
    public var providerOrigins: [String]?
    public var endpoints: Endpoints?
    /// The client (not needed for the user-agent role).
    public var client: Client?
    /// User-agent role: the relying party's login URL to start at.
    public var startURL: String?
    public var redirectURI: String?
    public var scopes: [String]?
    /// authorization_code (default), client_credentials or device_code.
    public var grant: String?
    /// The device authorization endpoint, when discovery does not list it.
    public var deviceAuthorizationEndpoint: String?
    /// S256 (default) or plain.
    public var pkce: String?
    public var login: Login?
    /// Also run the refresh token grant.
    public var refresh: Bool?
    /// Also call userinfo (and check its sub against the ID token's).
    public var userinfo: Bool?
    public var expect: Expect?
    /// For a kept access token (`AccessTokenKeeper`, a relay's token): the longest it is used,
    /// in seconds, when that is shorter than the provider's `expires_in` (a relay that links
    /// the tunnels of one token links fewer).
    public var maximumTokenLifetime: Double?

    /// Values that came from the environment or are passwords and secrets: never to be printed.
    public private(set) var secrets: [String] = []

    private enum CodingKeys: String, CodingKey {
        case name, issuer, providerOrigins, endpoints, client, startURL, redirectURI, scopes, grant, deviceAuthorizationEndpoint, pkce, login, refresh, userinfo, expect
        case maximumTokenLifetime
    }

    /// Reads a scenario; throws `OAuthError` (`scenarioFile`) naming the file and the JSON path.
    public static func load(_ data: Data, file: String, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(OAuthError) -> OAuthScenario {
        guard let json = JSONValue.parse(data) else { throw OAuthError.scenario(file: file, path: "$", reason: "not JSON") }
        var substituted: [String] = []
        let resolved = try substitute(json, path: "$", file: file, environment: environment, secrets: &substituted)
        var scenario: OAuthScenario
        do {
            scenario = try JSONDecoder().decode(OAuthScenario.self, from: try JSONEncoder().encode(resolved))
        } catch let error as DecodingError {
            throw OAuthError.scenario(decoding: error, file: file)
        } catch {
            throw OAuthError.scenario(file: file, path: "$", reason: "\(error)")
        }
        scenario.secrets = substituted + [scenario.client?.secret, scenario.login?.password].compactMap { $0 }
        try scenario.validate(file: file)
        return scenario
    }

    /// Throws unless this scenario can give an access token with no person at a browser: the
    /// client credentials or the device grant (for `AccessTokenKeeper`), and a positive
    /// `maximumTokenLifetime` if any. `file` names the scenario in the error.
    public func requireAccessTokenGrant(file: String) throws(OAuthError) {
        guard startURL == nil, ["client_credentials", "device_code"].contains(grant ?? "authorization_code") else {
            throw OAuthError.scenario(file: file, path: "$.grant",
                                      reason: "must be client_credentials or device_code for an access token kept without a browser")
        }
        if let lifetime = maximumTokenLifetime, !(lifetime.isFinite && lifetime > 0) {
            throw OAuthError.scenario(file: file, path: "$.maximumTokenLifetime", reason: "must be a positive number of seconds")
        }
    }

    /// `providerOrigins` as URLs (each checked by `load`).
    public var otherOrigins: [URL] { (providerOrigins ?? []).compactMap(URL.init(string:)) }

    private func validate(file: String) throws(OAuthError) {
        func fail(_ path: String, _ reason: String) -> OAuthError { .scenario(file: file, path: path, reason: reason) }
        for (index, text) in (providerOrigins ?? []).enumerated() {
            guard let url = URL(string: text), ProviderOrigins.origin(url) != nil, ["", "/"].contains(url.path), url.query == nil,
                  url.fragment == nil, url.user == nil else {
                throw fail("$.providerOrigins[\(index)]", "must be an https origin such as https://login.example.com")
            }
        }
        if let startURL {
            guard let url = URL(string: startURL), ["http", "https"].contains(url.scheme ?? "") else {
                throw fail("$.startURL", "must be an http or https URL")
            }
            guard login != nil else { throw fail("$.login", "the user-agent role needs login credentials") }
            guard providerOrigins?.isEmpty == false else {
                throw fail("$.providerOrigins", "the user-agent role needs the provider's origins (where the password may be sent)")
            }
            if let pattern = expect?.urlPattern, (try? NSRegularExpression(pattern: pattern)) == nil {
                throw fail("$.expect.urlPattern", "is not a regular expression")
            }
            return
        }
        guard (issuer == nil) != (endpoints == nil) else { throw fail("$", "give either issuer or endpoints (or startURL)") }
        guard let client else { throw fail("$.client", "is missing") }
        guard ["none", "client_secret_basic", "client_secret_post", "private_key_jwt"].contains(client.auth ?? "none") else {
            throw fail("$.client.auth", "must be none, client_secret_basic, client_secret_post or private_key_jwt")
        }
        if client.auth == "private_key_jwt" {
            guard let file = client.privateKeyFile else { throw fail("$.client.privateKeyFile", "private_key_jwt needs a private key file") }
            guard let pem = FileManager.default.contents(atPath: file), (try? JWSSigningKey(pem: pem)) != nil else {
                throw fail("$.client.privateKeyFile", "\(file) is not a readable RSA, EC P-256 or Ed25519 PEM private key")
            }
        } else if (client.auth ?? "none") != "none", client.secret == nil {
            throw fail("$.client.secret", "\(client.auth!) needs a secret")
        }
        guard ["authorization_code", "client_credentials", "device_code"].contains(grant ?? "authorization_code") else {
            throw fail("$.grant", "must be authorization_code, client_credentials or device_code")
        }
        if grant == "device_code", login == nil { throw fail("$.login", "the device grant needs login credentials") }
        guard ["S256", "plain"].contains(pkce ?? "S256") else { throw fail("$.pkce", "must be S256 or plain") }
        if (grant ?? "authorization_code") == "authorization_code" {
            guard let redirectURI, URL(string: redirectURI)?.scheme != nil else { throw fail("$.redirectURI", "an absolute redirect URI is needed") }
            guard login != nil else { throw fail("$.login", "the authorization code grant needs login credentials") }
        }
        if let consent = login?.consent, !["approve", "deny"].contains(consent) { throw fail("$.login.consent", "must be approve or deny") }
    }

    private static func substitute(_ value: JSONValue, path: String, file: String, environment: [String: String],
                                   secrets: inout [String]) throws(OAuthError) -> JSONValue {
        switch value {
        case .string(let text) where text.hasPrefix("${env:") && text.hasSuffix("}"):
            let name = String(text.dropFirst(6).dropLast())
            guard let resolved = environment[name] else {
                throw OAuthError.scenario(file: file, path: path, reason: "environment variable \(name) is not set")
            }
            secrets.append(resolved)
            return .string(resolved)
        case .array(let items):
            var result: [JSONValue] = []
            for (index, item) in items.enumerated() {
                result.append(try substitute(item, path: "\(path)[\(index)]", file: file, environment: environment, secrets: &secrets))
            }
            return .array(result)
        case .object(let members):
            var result: [String: JSONValue] = [:]
            for (key, member) in members {
                result[key] = try substitute(member, path: "\(path).\(key)", file: file, environment: environment, secrets: &secrets)
            }
            return .object(result)
        default:
            return value
        }
    }
}

extension OAuthError {
    /// A scenario file that cannot be used: the file, the JSON path and why.
    static func scenario(file: String, path: String, reason: String) -> OAuthError {
        OAuthError(.scenarioFile(file: file, path: path, reason: reason))
    }

    /// The scenario file's JSON, as the decoder found it wrong, at its JSON path.
    static func scenario(decoding error: DecodingError, file: String) -> OAuthError {
        func path(_ keys: [CodingKey]) -> String {
            "$" + keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        }
        switch error {
        case .keyNotFound(let key, let context): return scenario(file: file, path: path(context.codingPath + [key]), reason: "is missing")
        case .typeMismatch(let type, let context): return scenario(file: file, path: path(context.codingPath), reason: "must be \(type)")
        case .valueNotFound(let type, let context): return scenario(file: file, path: path(context.codingPath), reason: "must be \(type)")
        case .dataCorrupted(let context): return scenario(file: file, path: path(context.codingPath), reason: context.debugDescription)
        @unknown default: return scenario(file: file, path: "$", reason: "\(error)")
        }
    }
}
