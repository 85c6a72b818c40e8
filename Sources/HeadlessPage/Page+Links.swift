import Foundation
import CSSStyle

/// A link of a page: where an `a`, `area` or `link` element's `href` points, made absolute.
public struct PageLink: Sendable, Hashable {
    public let url: URL
    /// The `rel` keywords of the elements linking to `url`, lower case, each once, in document
    /// order (empty when none has one).
    public let relations: [String]
}

extension Page {
    /// The page's links (`a[href]`, `area[href]`, `link[href]`) in document order, resolved
    /// against the base URL, each URL once (fragments kept, so `#top` and `#end` differ); the
    /// `rel` keywords of every element naming a URL are merged into its one entry. An `href`
    /// that is not a URL reference is left out.
    public var links: [PageLink] {
        var order: [URL] = []
        var relations: [URL: [String]] = [:]
        let base = baseURL
        for element in select("a[href], area[href], link[href]") {
            guard let href = element.attribute("href"),
                  let url = SubresourceURL.reference(href.trimmingCharacters(in: .whitespacesAndNewlines), against: base) else { continue }
            if relations[url] == nil { order.append(url) }
            var keywords = relations[url] ?? []
            for keyword in (element.attribute("rel") ?? "").lowercased().split(whereSeparator: { $0.isWhitespace }).map(String.init)
            where !keywords.contains(keyword) {
                keywords.append(keyword)
            }
            relations[url] = keywords
        }
        return order.map { PageLink(url: $0, relations: relations[$0] ?? []) }
    }
}
