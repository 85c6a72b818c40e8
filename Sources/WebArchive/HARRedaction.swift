import Foundation
import HTTPCore

/// What a HAR writer blanks so that the file can be shared (Chromium's DevTools exports HAR
/// "sanitized" the same way unless asked for sensitive data): the values of credential headers;
/// credential parameters in URLs, Location and Referer values, urlencoded and JSON bodies; then
/// every value so found, and every string the caller names, wherever else it appears in the
/// finished tree. With `enabled` false, values pass through unchanged.
struct HARRedaction {
    /// Header fields whose values are always redacted.
    static let sensitiveHeaders: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie"]
    /// Header fields that hold URLs: their queries are redacted.
    static let urlHeaders: Set<String> = ["location", "referer", "content-location"]
    /// Parameter and JSON member names whose values are always redacted.
    static let sensitiveNames: Set<String> = [
        "code", "access_token", "id_token", "refresh_token", "token", "client_secret", "password", "code_verifier",
        "device_code", "user_code", "client_assertion", "csrfmiddlewaretoken", "nonce", "state",
    ]
    static let redacted = CredentialRedactor.redacted

    let enabled: Bool
    private var credentials = CredentialRedactor(sensitiveNames: sensitiveNames)

    init(enabled: Bool = true) { self.enabled = enabled }

    /// A URL (absolute or relative) with credential parameters blanked.
    mutating func url(_ text: String) -> String { enabled ? credentials.url(text) : text }

    /// A urlencoded body with credential parameters blanked.
    mutating func form(_ encoded: String) -> String { enabled ? credentials.form(encoded) : encoded }

    /// A parsed JSON value with credential members blanked.
    mutating func json(_ value: Any) -> Any { enabled ? credentials.json(value) : value }

    /// HAR's `headers` array for `fields`.
    mutating func headers(_ fields: HTTPFields) -> [HARLog.NameValue] {
        fields.map { field in
            guard enabled else { return .init(name: field.name, value: field.value) }
            let name = field.name.lowercased()
            let value = Self.sensitiveHeaders.contains(name) ? Self.redacted : Self.urlHeaders.contains(name) ? credentials.url(field.value) : field.value
            return .init(name: field.name, value: value)
        }
    }

    /// HAR's `queryString` array for a URL as it is written in the file.
    static func queryString(of url: String) -> [HARLog.NameValue] {
        CredentialRedactor.pairs(URLComponents(string: url)?.percentEncodedQuery ?? "").map { .init(name: $0.name, value: $0.value) }
    }

    /// What the finished log passes each string through before it is encoded: `secrets` and every
    /// value blanked so far are blanked wherever they appear, before JSON escaping could hide one.
    func finishing(secrets: [String] = []) -> (String) -> String {
        let redactor = SecretRedactor(secrets: secrets + (enabled ? credentials.scrubbable : []))
        return { redactor.redact($0) }
    }

    /// A parsed JSON value with `redact` applied to every string in it, member names too.
    static func clean(_ value: Any, _ redact: (String) -> String) -> Any {
        switch value {
        case let text as String:
            return redact(text)
        case let object as [String: Any]:
            return Dictionary(object.map { (redact($0.key), clean($0.value, redact)) }) { first, _ in first }
        case let array as [Any]:
            return array.map { clean($0, redact) }
        default:
            return value
        }
    }
}
