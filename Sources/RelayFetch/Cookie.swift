import Foundation

/// One stored cookie (RFC 6265bis §5.7).
public struct Cookie: Sendable, Equatable {
    public enum SameSite: String, Sendable {
        case strict, lax
        /// `SameSite=None` (named so it cannot be mistaken for Optional's `.none`).
        case unrestricted = "none"
    }

    public let name: String
    public let value: String
    /// Lower-case host (host-only) or domain the cookie belongs to.
    public let domain: String
    public let hostOnly: Bool
    public let path: String
    public let secure: Bool
    public let httpOnly: Bool
    public let sameSite: SameSite
    /// nil for a session cookie.
    public let expires: Date?
    let created: Date
    /// When a request last carried it (or it was set): eviction removes the least recently used.
    var lastAccessed: Date

    func isExpired(at now: Date) -> Bool { expires.map { $0 <= now } ?? false }

    /// Whether this cookie goes with a request to `url`.
    func matches(_ url: URL, at now: Date) -> Bool {
        guard let host = url.host?.lowercased(), !isExpired(at: now) else { return false }
        if secure && url.scheme?.lowercased() != "https" { return false }
        let hostMatches = hostOnly ? host == domain : (host == domain || host.hasSuffix("." + domain))
        return hostMatches && Self.pathMatches(url.path.isEmpty ? "/" : url.path, cookiePath: path)
    }

    static func pathMatches(_ requestPath: String, cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return cookiePath.hasSuffix("/") || requestPath.dropFirst(cookiePath.count).first == "/"
    }
}
