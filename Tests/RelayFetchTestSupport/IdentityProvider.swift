import Foundation

/// The OAuth 2.0 / OpenID Connect identity provider of the OAuthFlow tests: django-oauth-toolkit
/// (Samples/servers/oauth_idp/serve.py) behind TLS with the origin certificate on 127.0.0.21, a
/// fresh SQLite database and RSA key per instance. Reach it through relay A as
/// `https://origin.test:<port>/` (squid resolves origin.test to 127.0.0.21).
public final class IdentityProvider {
    public static let username = "alice"
    public static let password = "wonderland-pw"
    /// A public client (PKCE, consent shown).
    public static let publicClientID = "public-app"
    /// A confidential client (consent skipped).
    public static let confidentialClientID = "confidential-app"
    public static let confidentialClientSecret = "confidential-secret"
    /// A client for the client credentials grant.
    public static let serviceClientID = "service-app"
    public static let serviceClientSecret = "service-secret"

    private let server: HostileServer
    private let state: URL

    public var port: UInt16 { server.port }
    /// The issuer as the provider names itself when reached as origin.test.
    public var issuer: String { "https://origin.test:\(port)/o" }

    public init() throws {
        state = FileManager.default.temporaryDirectory.appendingPathComponent("oauth-idp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        server = try HostileServer(script: "../oauth_idp/serve.py", arguments: ["--state", state.path])
    }

    deinit { stop() }

    public func stop() {
        server.stop()
        try? FileManager.default.removeItem(at: state)
    }

    /// One request the provider received.
    public struct Request: Equatable {
        public let clientAddress: String
        public let method: String
        public let path: String
        public let hadProxyAuthorization: Bool
        public let hadRelayToken: Bool
    }

    /// Every request the provider logged; throws when the log is missing.
    public func requests() throws -> [Request] {
        try server.events().compactMap { line in
            let fields = line.split(separator: "\t").map(String.init)
            guard fields.count == 6, fields[0] == "request" else { return nil }
            return Request(clientAddress: fields[1], method: fields[2], path: fields[3],
                           hadProxyAuthorization: fields[4] == "proxy-authorization=True", hadRelayToken: fields[5] == "relay-token=True")
        }
    }
}
