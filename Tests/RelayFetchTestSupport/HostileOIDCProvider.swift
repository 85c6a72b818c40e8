import Foundation

/// Samples/servers/hostile/oidc_provider.py for one test: a small OpenID Connect provider of our
/// own on `host` (127.0.0.21 or 127.0.0.22, which the origin certificate names), told how to
/// misbehave by `arguments`. Its log shows every request and every form field it received, so
/// a test proves from the server's side whether a password, a secret or any request reached it.
public final class HostileOIDCProvider {
    public let server: HostileServer
    /// `https://HOST:PORT` (`http://` with `--plain`): the issuer and the origin.
    public let origin: String

    public init(host: String = "127.0.0.21", arguments: [String] = []) throws {
        server = try HostileServer(script: "oidc_provider.py", host: host, arguments: arguments)
        origin = (arguments.contains("--plain") ? "http" : "https") + "://\(host):\(server.port)"
    }

    /// Starts a provider on `host` whose arguments name `sink`'s origin where they say `SINK`.
    public convenience init(host: String = "127.0.0.21", pointingAt sink: HostileOIDCProvider, arguments: [String]) throws {
        try self.init(host: host, arguments: arguments.map { $0.replacingOccurrences(of: "SINK", with: sink.origin) })
    }

    public func stop() { server.stop() }

    /// `(method, path)` of every request received; throws when the log is missing.
    public func requests() throws -> [(method: String, path: String)] {
        try server.events().compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return fields.count == 3 && fields[0] == "REQUEST" ? (fields[1], fields[2]) : nil
        }
    }

    /// `(name, value)` of every form field received (query or urlencoded body); throws when the
    /// log is missing.
    public func fields() throws -> [(name: String, value: String)] {
        try server.events().compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 3, fields[0] == "FIELD",
                  let value = try? JSONSerialization.jsonObject(with: Data(fields[2].utf8), options: .fragmentsAllowed) as? String else { return nil }
            return (fields[1], value)
        }
    }
}
