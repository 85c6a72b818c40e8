import Foundation
import PrivacyPass

/// A Privacy Pass issuer directory (RFC 9578 §4) as read: where token requests go, the keys by
/// type (an issuer may publish several per type while it rotates them), and until when it may
/// be used without asking again.
struct IssuerDirectory: Sendable {
    let requestURL: URL
    let keys: [TokenType: [[UInt8]]]
    let expires: Date

    /// The longest a directory is kept, whatever its max-age says: the client-side bound, so an
    /// issuer (or a relay on the way) cannot pin a key for the whole of a long crawl.
    static let longestLifetime: TimeInterval = 3600

    /// Parses the directory's JSON; nil when it is not one. `cacheControl` sets its lifetime:
    /// max-age seconds (at most `longestLifetime`), none for no-store or no-cache, and
    /// `longestLifetime` without a max-age.
    init?(body: Data, issuer: URL, cacheControl: String?, now: Date) {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
              let path = object["issuer-request-uri"] as? String, let requestURL = URL(string: path, relativeTo: issuer)?.absoluteURL,
              let entries = object["token-keys"] as? [[String: Any]] else { return nil }
        var keys: [TokenType: [[UInt8]]] = [:]
        for entry in entries {
            guard let raw = entry["token-type"] as? Int, let type = TokenType(rawValue: UInt16(truncatingIfNeeded: raw)),
                  let encoded = entry["token-key"] as? String, let key = Base64URL.decode(encoded) else { continue }
            keys[type, default: []].append(Array(key))
        }
        self.requestURL = requestURL
        self.keys = keys
        expires = now.addingTimeInterval(Self.lifetime(cacheControl: cacheControl))
    }

    /// Seconds a directory with this Cache-Control may be used (0: this issuance only).
    static func lifetime(cacheControl: String?) -> TimeInterval {
        guard let cacheControl else { return longestLifetime }
        var maxAge: TimeInterval?
        for directive in cacheControl.lowercased().split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            switch parts[0] {
            case "no-store", "no-cache": return 0
            case "max-age" where parts.count == 2:
                maxAge = TimeInterval(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))).map { max(0, $0) } ?? 0
            default: continue
            }
        }
        return min(maxAge ?? longestLifetime, longestLifetime)
    }

    /// The key to issue with for a challenge of `type`: the challenge's own `token-key` when this
    /// directory publishes it, the first published key when the challenge names none; nil when
    /// the directory has no such key (a relay's key of its own would let it tag this client).
    func key(for type: TokenType, challengeKey: [UInt8]?) -> [UInt8]? {
        guard let published = keys[type] else { return nil }
        guard let challengeKey else { return published.first }
        return published.contains(challengeKey) ? challengeKey : nil
    }
}
