import HTTPCore
import Foundation
import RelayFetch

/// The origins that belong to the identity provider: the issuer's, when it is https, and any
/// listed explicitly (a separate login host, a token or JWKS host). Only these receive the
/// user's password and user code, and discovered endpoints must be on them: a page or a
/// discovery document the provider does not control can then never send credentials elsewhere.
/// Every origin here is https; an http one is never trusted, listed or not.
public struct ProviderOrigins: Sendable, Equatable, CustomStringConvertible {
    /// Serialized origins (`https://host[:port]`, lower case, no default port).
    public let origins: Set<String>

    /// The issuer's origin (when it is an https URL) and each of `others` (ignored unless https).
    public init(issuer: String?, others: [URL] = []) {
        var origins = Set(others.compactMap(Self.origin))
        if let issuer = issuer.flatMap(URL.init(string:)), let origin = Self.origin(issuer) { origins.insert(origin) }
        self.origins = origins
    }

    /// Whether `url` is https on one of these origins.
    public func contains(_ url: URL) -> Bool { Self.origin(url).map(origins.contains) ?? false }

    /// Throws `untrustedOrigin` naming `what` unless `url` is on one of these origins.
    func require(_ url: URL, for what: String) throws(OAuthError) {
        guard contains(url) else { throw OAuthError(.untrustedOrigin(what: what, url: LoginDriver.redacted(url), trusted: description)) }
    }

    public var description: String { origins.isEmpty ? "none (the issuer is not https)" : origins.sorted().joined(separator: ", ") }

    /// The serialized origin of an https URL, nil for any other scheme or a URL without a host.
    static func origin(_ url: URL) -> String? { url.scheme?.lowercased() == "https" ? url.serializedOrigin : nil }
}
