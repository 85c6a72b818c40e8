/// A Content-Type field's media type and charset (RFC 9110 §8.3): the one parser of them, for
/// the session's `acceptedMediaTypes`, the page loader, the navigator and the crawler.
package struct ContentType: Equatable, Sendable {
    /// "type/subtype" in lower case, spaces around it dropped; nil for an empty field.
    package let mediaType: String?
    /// The `charset` parameter's value, quotes removed, case kept; nil when absent.
    package let charset: String?

    /// Parses a field value; nil gives no media type and no charset. Splits on the scalars ";" and
    /// "=", never on Characters: a combining mark after ";" makes one grapheme that is not ";".
    package init(_ value: String?) {
        let parts = (value ?? "").unicodeScalars.split(separator: ";", omittingEmptySubsequences: false)
            .map { String(String.UnicodeScalarView($0)).trimmingHTTPWhitespace() }
        mediaType = parts.first.flatMap { $0.isEmpty ? nil : $0.lowercased() }
        charset = parts.dropFirst().lazy.compactMap { parameter -> String? in
            let pair = parameter.unicodeScalars.split(separator: "=", maxSplits: 1).map { String(String.UnicodeScalarView($0)) }
            guard pair.count == 2, pair[0].trimmingHTTPWhitespace().equalsIgnoringASCIICase("charset") else { return nil }
            let value = pair[1].trimmingHTTPWhitespace().unicodeScalars
            let isQuote: (Unicode.Scalar) -> Bool = { $0 == "\"" || $0 == "'" }
            guard let first = value.firstIndex(where: { !isQuote($0) }), let last = value.lastIndex(where: { !isQuote($0) }) else { return "" }
            return String(value[first...last])
        }.first
    }

    /// The media type's top-level type with a wildcard ("text/*"), as `Accept` lists write it.
    package var wildcard: String? { mediaType.map { ($0.split(separator: "/").first.map(String.init) ?? "") + "/*" } }

    /// Whether the type is one of `types` ("text/html") or its wildcard is ("text/*"), ASCII case ignored.
    package func matches(any types: [String]) -> Bool {
        guard let mediaType else { return false }
        let wildcard = wildcard ?? ""
        return types.contains { $0.equalsIgnoringASCIICase(mediaType) || $0.equalsIgnoringASCIICase(wildcard) }
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (OWS, RFC 9110 §5.6.3), compared as scalars
    /// (a space followed by a combining mark is still a space here).
    package func trimmingHTTPWhitespace() -> String {
        let scalars = unicodeScalars
        let isWhitespace: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = scalars.firstIndex(where: { !isWhitespace($0) }), let last = scalars.lastIndex(where: { !isWhitespace($0) }) else { return "" }
        var trimmed = ""
        trimmed.unicodeScalars.append(contentsOf: scalars[first...last])
        return trimmed
    }
}
