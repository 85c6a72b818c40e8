import Foundation
import RelayFetch

/// The OAuth 2.0 / OpenID Connect identity provider of the tests: django-oauth-toolkit and a small
/// relying-party app under /app/ (Samples/servers/oauth_idp/serve.py), started by
/// scripts/test-servers.sh as https://idp.test on 127.0.0.23:443. Only the relays resolve
/// idp.test, and tests reach it only through relay A then relay B (`hops`), so its own log
/// (`requests()`) must show relay B's address and nothing else.
///
/// One instance serves every test class: no test needs a configuration of its own (a key
/// rotation test would, since the provider has one signing key for its lifetime; there is none).
public enum IdentityProvider {
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
    /// A public client for the device authorization grant.
    public static let deviceClientID = "device-app"

    public static let origin = "https://idp.test"
    public static let issuer = "https://idp.test/o"
    public static let address = "127.0.0.23"
    public static var log: URL { TestServers.directory.appendingPathComponent("idp/access.log") }

    /// Relay A then relay B, each with its own token: the only way tests reach the provider.
    public static var hops: [ProxyConfiguration.RelayHop] {
        [TestServers.relayHop(), TestServers.relayHop(token: TestServers.relayBToken, url: TestServers.relayBURL)]
    }

    /// A session configuration through `hops` that trusts the test CA (started servers first).
    public static func configuration() throws -> Session.Configuration {
        try TestServers.ensureRunning()
        return TestServers.configuration(hops: hops)
    }

    /// One request the provider received.
    public struct Request: Equatable {
        public let clientAddress: String
        public let method: String
        public let path: String
        public let hadProxyAuthorization: Bool
        public let hadRelayToken: Bool
    }

    /// Every request the provider logged since it started; throws when the log is missing.
    public static func requests() throws -> [Request] {
        try entries("request", fields: 5).map {
            Request(clientAddress: $0[0], method: $0[1], path: $0[2],
                    hadProxyAuthorization: $0[3] == "proxy-authorization=True", hadRelayToken: $0[4] == "relay-token=True")
        }
    }

    /// A value the provider received or issued that no output may hold: a `state`, `nonce`,
    /// code, token, password, client secret or CSRF token (serve.py's SECRET_NAMES).
    public struct Secret: Equatable {
        public let name: String
        public let value: String
    }

    /// Every secret value the provider logged since it started; throws when the log is missing.
    public static func secrets() throws -> [Secret] {
        try entries("secret", fields: 2).map { Secret(name: $0[0], value: $0[1]) }
    }

    /// The fields after `kind` of each log line of that kind.
    private static func entries(_ kind: String, fields count: Int) throws -> [[String]] {
        try TestServers.ensureRunning()
        guard let text = try? String(contentsOf: log, encoding: .utf8) else {
            throw TestServerError(description: "the identity provider's log \(log.path) is missing or unreadable")
        }
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == count + 1, fields[0] == kind else { return nil }
            return Array(fields.dropFirst())
        }
    }
}
