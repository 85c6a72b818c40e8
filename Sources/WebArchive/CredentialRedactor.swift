import Foundation

/// Blanks credentials in what an OAuth flow exchanged, for a HAR file that can be shared: the
/// values of sensitive parameters in URL queries and fragments and in urlencoded bodies (also
/// when another parameter's value is itself a URL or a query, as in a login page's
/// `next=/o/authorize/%3F...%26state%3D...`), and sensitive members of JSON bodies. It keeps
/// every value it blanked, so `scrub` can blank copies of them anywhere else in the file.
struct CredentialRedactor {
    static let redacted = "[redacted]"
    /// How deep parameter values are searched for nested URLs and queries.
    private static let maximumDepth = 4
    /// Values shorter than this are blanked where found but not searched for elsewhere: a short
    /// string would match unrelated text.
    private static let minimumScrubLength = 8
    /// What percent-encoding leaves alone in a parameter value: the unreserved characters and
    /// the path and query delimiters that cannot split a parameter (not `&`, `=`, `+`, `#`).
    private static let valueCharacters = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/:?@!$'()*,;")

    let sensitiveNames: Set<String>
    /// Every non-empty value blanked so far.
    private(set) var found: Set<String> = []

    init(sensitiveNames: Set<String>) { self.sensitiveNames = sensitiveNames }

    /// An absolute or relative URL with sensitive values in its query and fragment blanked.
    mutating func url(_ text: String, depth: Int = 0) -> String {
        guard depth <= Self.maximumDepth, text.contains("="), var components = URLComponents(string: text) else { return text }
        var changed = false
        if let query = components.percentEncodedQuery {
            let clean = form(query, depth: depth)
            if clean != query { components.percentEncodedQuery = clean; changed = true }
        }
        if let fragment = components.percentEncodedFragment, fragment.contains("=") {
            let clean = form(fragment, depth: depth)
            if clean != fragment { components.percentEncodedFragment = clean; changed = true }
        }
        return changed ? (components.string ?? text) : text
    }

    /// An application/x-www-form-urlencoded string (a query or a body), percent-encoded as sent,
    /// with sensitive values blanked.
    mutating func form(_ encoded: String, depth: Int = 0) -> String {
        encoded.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { return String(pair) }
            let value = Self.decode(parts[1])
            if sensitiveNames.contains(Self.decode(parts[0])) {
                if !value.isEmpty { found.insert(value) }
                return parts[0] + "=" + Self.encode(Self.redacted)
            }
            let inner = nested(value, depth: depth + 1)
            return inner == value ? String(pair) : parts[0] + "=" + Self.encode(inner)
        }.joined(separator: "&")
    }

    /// Decoded name-value pairs of a urlencoded string (for HAR's params and queryString).
    static func pairs(_ encoded: String) -> [(name: String, value: String)] {
        encoded.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (decode(parts[0]), parts.count == 2 ? decode(parts[1]) : "")
        }
    }

    /// A JSON value with sensitive members blanked and URLs in strings redacted.
    mutating func json(_ value: Any) -> Any {
        if let object = value as? [String: Any] {
            var clean: [String: Any] = [:]
            for (key, member) in object {
                if sensitiveNames.contains(key) {
                    if let text = member as? String, !text.isEmpty { found.insert(text) }
                    clean[key] = Self.redacted
                } else {
                    clean[key] = json(member)
                }
            }
            return clean
        }
        if let array = value as? [Any] { return array.map { json($0) } }
        if let text = value as? String { return nested(text, depth: 1) }
        return value
    }

    /// The values blanked so far that are long enough to be told apart from unrelated text: a
    /// `SecretRedactor` blanks them wherever else they appear.
    var scrubbable: [String] { found.filter { $0.count >= Self.minimumScrubLength } }

    /// A parameter's decoded value that may itself be a URL or a query holding credentials.
    private mutating func nested(_ value: String, depth: Int) -> String {
        guard depth <= Self.maximumDepth, value.contains("=") else { return value }
        if value.contains("?") || value.contains("#") || value.contains("://") { return url(value, depth: depth) }
        return form(value, depth: depth)
    }

    private static func decode<S: StringProtocol>(_ text: S) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    private static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: valueCharacters) ?? text
    }
}
