import Foundation

/// Blanks known secret values (passwords, client secrets, codes and tokens already found) in a
/// decoded text: as they are and percent-encoded the ways URLs and form bodies carry them. Apply
/// it to each string before any escaping (XML, JSON): a secret holding `&`, `"` or `\` no longer
/// looks like itself once escaped, and would pass a check made afterwards.
public struct SecretRedactor: Sendable {
    public static let placeholder = "[redacted]"
    private static let encodedPlaceholder = "%5Bredacted%5D"
    /// What each common encoder leaves alone: HTML's form encoding (spaces as `+`), RFC 3986's
    /// unreserved set, and Foundation's query and path sets.
    private static let unencoded: [CharacterSet] = [
        CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789*-._"),
        CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"),
        CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/:?@!$'()*,;"),
        .urlQueryAllowed, .urlPathAllowed,
    ]

    /// Longest first, so a secret that contains another is blanked whole.
    private let secrets: [String]
    /// Each secret's encoded forms other than itself.
    private let encodings: [String: [String]]

    public init(secrets: [String]) {
        self.secrets = Array(Set(secrets.filter { !$0.isEmpty })).sorted { $0.count > $1.count }
        var encodings: [String: [String]] = [:]
        for secret in self.secrets { encodings[secret] = Self.encodedForms(secret) }
        self.encodings = encodings
    }

    /// `text` with every secret blanked; when a secret still shows once `text` is
    /// percent-decoded (an encoding not foreseen), the whole text is blanked.
    public func redact(_ text: String) -> String {
        guard !secrets.isEmpty else { return text }
        var clean = text
        for secret in secrets {
            clean = clean.replacingOccurrences(of: secret, with: Self.placeholder)
            for form in encodings[secret] ?? [] { clean = clean.replacingOccurrences(of: form, with: Self.encodedPlaceholder) }
        }
        guard clean.contains("%") || clean.contains("+") else { return clean }
        let decodings = [clean.removingPercentEncoding, clean.replacingOccurrences(of: "+", with: " ").removingPercentEncoding]
        for decoded in decodings.compactMap({ $0 }) where secrets.contains(where: { decoded.contains($0) }) {
            return Self.placeholder
        }
        return clean
    }

    /// Whether `text` holds a secret, as it is or percent-decoded.
    public func reveals(_ text: String) -> Bool { redact(text) != text }

    private static func encodedForms(_ secret: String) -> [String] {
        var forms: Set<String> = []
        for allowed in unencoded {
            guard let encoded = secret.addingPercentEncoding(withAllowedCharacters: allowed) else { continue }
            for form in [encoded, encoded.replacingOccurrences(of: "%20", with: "+")] {
                forms.insert(form)
                forms.insert(lowercasedEscapes(form))
            }
        }
        forms.remove(secret)
        return forms.sorted { $0.count > $1.count }
    }

    /// `%2F` as `%2f`: some encoders write lower-case hex digits.
    private static func lowercasedEscapes(_ text: String) -> String {
        var result = ""
        var pending = 0
        for character in text {
            if character == "%" { pending = 2; result.append(character); continue }
            result.append(pending > 0 ? Character(character.lowercased()) : character)
            pending = max(0, pending - 1)
        }
        return result
    }
}
