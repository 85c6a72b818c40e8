import Foundation

/// An in-memory cookie jar (RFC 6265bis): Domain, Path, Secure, HttpOnly, SameSite, Max-Age,
/// Expires, host-only cookies, the `__Host-` and `__Secure-` prefixes, and public suffixes
/// (libpsl) refused as cookie domains. Thread-safe; never written anywhere.
public final class CookieJar: @unchecked Sendable {
    private let lock = NSLock()
    private var cookies: [Cookie] = []
    private let now: () -> Date

    public init(clock: @escaping () -> Date = Date.init) {
        now = clock
    }

    /// Every live cookie (for tests and inspection).
    public var allCookies: [Cookie] {
        let time = now()
        return lock.withLock { cookies.filter { !$0.isExpired(at: time) } }
    }

    /// Stores the cookies of `Set-Cookie` header values received from `url`.
    public func store(setCookieValues values: [String], from url: URL) {
        for value in values { store(value, from: url) }
    }

    /// The `Cookie` header value for a request to `url`, or nil when no cookie applies.
    /// `siteForCookies` is the top-level page's URL; cross-site requests carry only SameSite=None.
    public func cookieHeader(for url: URL, siteForCookies: URL? = nil) -> String? {
        let time = now()
        let crossSite = siteForCookies.map { !Self.sameSite($0, url) } ?? false
        let matching = lock.withLock { cookies.filter { $0.matches(url, at: time) } }
            .filter { !crossSite || $0.sameSite == .unrestricted }
            .sorted { $0.path.count != $1.path.count ? $0.path.count > $1.path.count : $0.created < $1.created }
        guard !matching.isEmpty else { return nil }
        return matching.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// Parses one Set-Cookie value and stores, replaces or deletes accordingly (RFC 6265bis §5.6-5.7).
    func store(_ header: String, from url: URL) {
        guard let host = url.host?.lowercased(), var parsed = SetCookieParser.parse(header) else { return }
        let secureOrigin = url.scheme?.lowercased() == "https"
        if parsed.secure && !secureOrigin { return }
        var domain = host
        var hostOnly = true
        if let attribute = parsed.domain, !attribute.isEmpty {
            if PublicSuffixList.isPublicSuffix(attribute) {
                guard attribute == host else { return }  // a public suffix only for itself, host-only
            } else {
                guard host == attribute || host.hasSuffix("." + attribute) else { return }
                domain = attribute
                hostOnly = false
            }
        }
        if parsed.name.hasPrefix("__Secure-") && !(parsed.secure && secureOrigin) { return }
        if parsed.name.hasPrefix("__Host-") && !(parsed.secure && secureOrigin && hostOnly && parsed.path == "/") { return }
        if parsed.sameSite == .unrestricted && !parsed.secure { parsed.sameSite = .lax }  // SameSite=None requires Secure
        let path = parsed.path ?? Self.defaultPath(url)
        let time = now()
        let expires: Date? = parsed.maxAge.map { time.addingTimeInterval(TimeInterval($0)) } ?? parsed.expires
        lock.withLock {
            let existing = cookies.firstIndex { $0.name == parsed.name && $0.domain == domain && $0.path == path }
            let created = existing.map { cookies[$0].created } ?? time
            if let existing { cookies.remove(at: existing) }
            let cookie = Cookie(name: parsed.name, value: parsed.value, domain: domain, hostOnly: hostOnly, path: path,
                                secure: parsed.secure, httpOnly: parsed.httpOnly, sameSite: parsed.sameSite ?? .lax,
                                expires: expires, created: created)
            if !cookie.isExpired(at: time) { cookies.append(cookie) }
        }
    }

    /// The directory of the request path (RFC 6265bis §5.1.4).
    static func defaultPath(_ url: URL) -> String {
        let path = url.path
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    static func sameSite(_ a: URL, _ b: URL) -> Bool {
        guard let hostA = a.host?.lowercased(), let hostB = b.host?.lowercased() else { return false }
        return (PublicSuffixList.registrableDomain(hostA) ?? hostA) == (PublicSuffixList.registrableDomain(hostB) ?? hostB)
    }
}

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

    static func parse(_ header: String) -> SetCookieParser? {
        // A control character other than HTAB voids the whole line (RFC 6265bis §5.6 step 1): it
        // would otherwise travel back in the Cookie header.
        guard !header.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) else { return nil }
        var parts = header.split(separator: ";", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        let pair = parts.removeFirst()
        guard let equals = pair.firstIndex(of: "=") else { return nil }
        var result = SetCookieParser()
        result.name = String(pair[..<equals]).trimmingCharacters(in: .whitespaces)
        result.value = String(pair[pair.index(after: equals)...]).trimmingCharacters(in: .whitespaces)
        guard !result.name.isEmpty, result.name.count + result.value.count <= 4096 else { return nil }
        for attribute in parts {
            let key = attribute.split(separator: "=", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            let value = attribute.firstIndex(of: "=").map { String(attribute[attribute.index(after: $0)...]).trimmingCharacters(in: .whitespaces) } ?? ""
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

/// HTTP dates (RFC 9110 §5.6.7), including the obsolete forms cookies still use.
enum HTTPDate {
    private static let formats = ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy",
                                  "EEE, dd-MMM-yyyy HH:mm:ss zzz", "EEE, dd MMM yyyy HH:mm:ss Z"]

    static func parse(_ text: String) -> Date? {
        // HTTP dates are short ASCII; Foundation's DateFormatter on Linux traps on some non-ASCII
        // text (found by fuzzing), and a server's Expires value must not be able to crash us.
        guard text.utf8.count <= 64, text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for format in formats {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
