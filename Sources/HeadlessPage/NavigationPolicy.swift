import Foundation

/// Which URLs a `Navigator` must not request but hand back: an OAuth client's redirect URI
/// (a custom scheme such as `com.example.app:/callback`, or a loopback
/// `http://127.0.0.1:PORT/callback` that nothing needs to listen on). Checked before every
/// request, redirects and links included.
public struct NavigationPolicy: Sendable {
    private let intercepts: @Sendable (URL) -> Bool

    /// Intercepts what `predicate` accepts.
    public init(intercepting predicate: @escaping @Sendable (URL) -> Bool) { intercepts = predicate }

    /// Requests everything.
    public static let loadEverything = NavigationPolicy { _ in false }

    /// Intercepts URLs that match `redirectURI` in scheme, host, port and path (the query and
    /// fragment carry the response, so they may differ), and any URL whose scheme is not http or
    /// https (a browser would hand it to another app, never to the network).
    public static func intercepting(redirectURI: URL) -> NavigationPolicy {
        NavigationPolicy { url in
            let scheme = url.scheme?.lowercased() ?? ""
            return Self.matches(url, redirectURI) || (scheme != "http" && scheme != "https")
        }
    }

    /// Whether a navigation to `url` is handed back instead of requested.
    public func shouldIntercept(_ url: URL) -> Bool { intercepts(url) }

    static func matches(_ url: URL, _ redirectURI: URL) -> Bool {
        func key(_ url: URL) -> String {
            let scheme = url.scheme?.lowercased() ?? ""
            let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
            let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path
            return "\(scheme)|\(url.host?.lowercased() ?? "")|\(port)|\(path.isEmpty && url.host != nil ? "/" : path)"
        }
        return key(url) == key(redirectURI)
    }
}

/// Where a navigation ended: a loaded page, or a URL the policy intercepted (never requested).
public enum NavigationOutcome: Sendable {
    case page(Page)
    case intercepted(URL)

    /// The page, when one loaded.
    public var page: Page? {
        if case .page(let page) = self { return page }
        return nil
    }

    /// The intercepted URL, when the navigation was handed back.
    public var interceptedURL: URL? {
        if case .intercepted(let url) = self { return url }
        return nil
    }
}
