import Foundation

/// How much of the referring document's URL a request's `Referer` carries (W3C Referrer
/// Policy). The default, as in browsers, is `strictOriginWhenCrossOrigin`: the full URL (without
/// fragment or credentials) to the same origin, the origin alone to other origins, nothing from
/// https to http.
public enum ReferrerPolicy: String, Sendable, CaseIterable {
    case noReferrer = "no-referrer"
    case noReferrerWhenDowngrade = "no-referrer-when-downgrade"
    case sameOrigin = "same-origin"
    case origin
    case strictOrigin = "strict-origin"
    case originWhenCrossOrigin = "origin-when-cross-origin"
    case strictOriginWhenCrossOrigin = "strict-origin-when-cross-origin"
    case unsafeURL = "unsafe-url"

    /// The policy a `<meta name="referrer">` content, a `referrerpolicy` attribute or a
    /// `Referrer-Policy` header names: the last token recognised wins; nil when none is.
    public init?(parsing value: String) {
        let tokens = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard let policy = tokens.reversed().lazy.compactMap({ ReferrerPolicy(rawValue: $0) }).first else { return nil }
        self = policy
    }

    /// The `Referer` value for a request to `target` from a document at `referrer`; nil when
    /// none may be sent.
    public func referer(from referrer: URL, to target: URL) -> String? {
        guard let scheme = referrer.scheme?.lowercased(), scheme == "https" || scheme == "http",
              var components = URLComponents(url: referrer, resolvingAgainstBaseURL: false) else { return nil }
        components.fragment = nil
        components.user = nil
        components.password = nil
        components.host = components.host?.lowercased()
        guard let full = components.url?.absoluteString else { return nil }
        components.percentEncodedPath = "/"
        components.percentEncodedQuery = nil
        guard let originOnly = components.url?.absoluteString else { return nil }
        let sameOrigin = referrer.originKey == target.originKey
        let downgrade = scheme == "https" && target.scheme?.lowercased() != "https"
        switch self {
        case .noReferrer: return nil
        case .noReferrerWhenDowngrade: return downgrade ? nil : full
        case .sameOrigin: return sameOrigin ? full : nil
        case .origin: return originOnly
        case .strictOrigin: return downgrade ? nil : originOnly
        case .originWhenCrossOrigin: return sameOrigin ? full : originOnly
        case .strictOriginWhenCrossOrigin: return sameOrigin ? full : (downgrade ? nil : originOnly)
        case .unsafeURL: return full
        }
    }
}
