import Foundation

/// How a page's URL references (attributes, CSS `url()`, `@import`) become URLs: one rule for
/// the scanner, the cascade, the style sheet collector and the offline copy.
package enum SubresourceURL {
    /// `text` as an absolute URL, characters a URL cannot hold as they are (spaces, non-ASCII)
    /// percent-encoded as a browser's URL parser does; nil when it is no URL reference at all.
    package static func reference(_ text: String, against base: URL) -> URL? {
        let parsed = URL(string: text, relativeTo: base)
            ?? text.addingPercentEncoding(withAllowedCharacters: .urlFragmentAllowed).flatMap { URL(string: $0, relativeTo: base) }
        return parsed?.absoluteURL
    }

    /// An absolute http(s) URL with a host, fragment removed; nil for data:, javascript: and the like.
    package static func resolve(_ text: String, against base: URL) -> URL? {
        guard !text.hasPrefix("#") else { return nil }  // a fragment of this very document
        // "https:/x" parses as https without a host; nothing can be fetched from it.
        guard let url = reference(text, against: base), url.host?.isEmpty == false,
              let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return nil }
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.fragment = nil
        return components?.url
    }
}
