import Foundation

/// The parts of one Set-Cookie header value.
struct SetCookieParser {
    var name = ""
    var value = ""
    var domain: String?
    var path: String?
    var secure = false
    var httpOnly = false
    var sameSite: Cookie.SameSite?
    var maxAge: Int?
    var expires: Date?

    /// nil when the cookie must be ignored (RFC 6265bis §5.6): a control character, an empty name
    /// and value, a name and value over 4096 octets, or a nameless value posing as a prefixed name.
    static func parse(_ header: String) -> SetCookieParser? {
        guard !header.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) else { return nil }
        var parts = header.split(separator: ";", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        let pair = parts.removeFirst()
        var result = SetCookieParser()
        if let equals = pair.firstIndex(of: "=") {
            result.name = String(pair[..<equals]).trimmingCharacters(in: .whitespaces)
            result.value = String(pair[pair.index(after: equals)...]).trimmingCharacters(in: .whitespaces)
        } else {
            result.value = pair  // a nameless cookie
        }
        guard !(result.name.isEmpty && result.value.isEmpty),
              result.name.utf8.count + result.value.utf8.count <= CookieLimits.maximumNameValueOctets else { return nil }
        let lowerValue = result.value.lowercased()
        if result.name.isEmpty && (lowerValue.hasPrefix("__secure-") || lowerValue.hasPrefix("__host-")) { return nil }
        for attribute in parts {
            let key = attribute.split(separator: "=", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            let value = attribute.firstIndex(of: "=").map { String(attribute[attribute.index(after: $0)...]).trimmingCharacters(in: .whitespaces) } ?? ""
            if value.utf8.count > CookieLimits.maximumAttributeValueOctets { continue }  // an oversized attribute is ignored
            switch key {
            case "domain":
                var domain = value.lowercased()
                while domain.hasPrefix(".") { domain.removeFirst() }
                result.domain = domain
            case "path": result.path = value.hasPrefix("/") ? value : nil
            case "secure": result.secure = true
            case "httponly": result.httpOnly = true
            case "samesite": result.sameSite = Cookie.SameSite(rawValue: value.lowercased())
            case "max-age": if let seconds = Int(value) { result.maxAge = seconds }
            case "expires": result.expires = HTTPDate.parse(value)
            default: break
            }
        }
        return result
    }
}
