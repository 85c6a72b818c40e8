/// The page-level robots rules a crawler obeys besides robots.txt: `<meta name="robots">` (or
/// a meta named for the crawler's product token) and the `X-Robots-Tag` response header, read
/// for `nofollow` and `none` (which includes it): either keeps every link of the page from
/// being followed. Names, agents and directives compare case-insensitively; values are lists
/// separated by commas. `rel="nofollow"` on one link is not read here: it stays a hint.
struct RobotsDirectives {
    /// The crawler's product token in lower case ("relayfetch").
    let productToken: String

    init(productToken: String) { self.productToken = productToken.lowercased() }

    /// The meta names that speak to this crawler.
    var metaNames: Set<String> { ["robots", productToken] }

    /// Which rule forbids following the page's links, as the record names it, or nil: the
    /// `X-Robots-Tag` fields of the response first, then the contents of the page's metas
    /// whose name is in `metaNames` (as (name, content)).
    func nofollow(headerValues: [String], metas: [(name: String, content: String)]) -> String? {
        if headerValues.contains(where: headerForbidsFollowing) { return "X-Robots-Tag" }
        for meta in metas where metaNames.contains(meta.name.lowercased()) && Self.forbidsFollowing(meta.content) {
            return "meta \(meta.name.lowercased())"
        }
        return nil
    }

    /// Whether a meta's content lists `nofollow` or `none`. Spaces separate too: "noindex nofollow"
    /// is a common misspelling of the list, and neither directive holds a space.
    static func forbidsFollowing(_ content: String) -> Bool {
        content.split(whereSeparator: { $0 == "," || $0.isWhitespace }).contains { isNofollow($0) }
    }

    /// Whether one `X-Robots-Tag` value forbids following for us. An agent prefix ("otherbot:
    /// nofollow") makes the directives after it, up to the next prefix, that agent's only; a
    /// directive with a value of its own ("unavailable_after: DATE", "max-snippet: 20") is not
    /// a prefix.
    func headerForbidsFollowing(_ value: String) -> Bool {
        var agent: Substring?
        for part in value.split(separator: ",") {
            var directive = part.drop { $0.isWhitespace }
            if let colon = directive.firstIndex(of: ":") {
                let name = directive[..<colon].trimmingWhitespace.lowercased()
                if !Self.directivesWithValues.contains(name) {
                    agent = Substring(name)
                    directive = directive[directive.index(after: colon)...]
                }
            }
            if (agent == nil || agent == Substring(productToken)) && Self.isNofollow(directive.trimmingWhitespace) { return true }
        }
        return false
    }

    private static func isNofollow(_ directive: Substring) -> Bool {
        let lowered = directive.lowercased()
        return lowered == "nofollow" || lowered == "none"
    }

    /// Directives written "name: value", told apart from an agent prefix by their name.
    private static let directivesWithValues: Set<String> = ["unavailable_after", "max-snippet", "max-image-preview", "max-video-preview"]
}

private extension Substring {
    var trimmingWhitespace: Substring {
        let start = drop { $0.isWhitespace }
        var end = start.endIndex
        while end > start.startIndex, start[start.index(before: end)].isWhitespace { end = start.index(before: end) }
        return start[start.startIndex..<end]
    }
}
