import Foundation

extension URL {
    /// The port, or the scheme's default one (80 for http, 443 for https).
    package var portOrDefault: Int { port ?? (scheme?.lowercased() == "http" ? 80 : 443) }

    /// "scheme://host:port", lower-cased, the default port filled in: two URLs are of the same
    /// origin when these are equal.
    package var originKey: String { "\(scheme?.lowercased() ?? "")://\(host?.lowercased() ?? ""):\(portOrDefault)" }
}
