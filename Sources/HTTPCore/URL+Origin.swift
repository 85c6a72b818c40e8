import Foundation

extension URL {
    /// The port, or the scheme's default one (80 for http, 443 for https).
    package var portOrDefault: Int { port ?? (scheme?.lowercased() == "http" ? 80 : 443) }

    /// "scheme://host:port", lower-cased, the default port filled in: two URLs are of the same
    /// origin when these are equal.
    package var originKey: String { "\(scheme?.lowercased() ?? "")://\(host?.lowercased() ?? ""):\(portOrDefault)" }

    /// This URL with its host in lower case, or the URL itself when its host has no capital:
    /// where a URL enters (the command line, a session's request, a redirect), so that routing,
    /// domain matching, pinned addresses, name resolution and what a relay is asked for all
    /// see one spelling of each host. A percent-encoded or internationalized host comes back
    /// in its lower-case ASCII form.
    package var withLowercasedHost: URL {
        guard let host, host != host.lowercased(), var components = URLComponents(url: self, resolvingAgainstBaseURL: true),
              let decoded = components.host else { return self }
        components.host = decoded.lowercased()
        return components.url ?? self
    }
}

extension URL {
    /// The serialized origin (`https://host[:port]`, lower case, the default port left out) of an
    /// http or https URL, as `Origin` fields carry it; nil for other schemes and URLs without a host.
    package var serializedOrigin: String? {
        guard let scheme = scheme?.lowercased(), scheme == "http" || scheme == "https", let host = host?.lowercased(), !host.isEmpty else { return nil }
        let defaultPort = scheme == "https" ? 443 : 80
        return "\(scheme)://\(host)" + (port.map { $0 == defaultPort ? "" : ":\($0)" } ?? "")
    }
}
