import Foundation
import HeadlessPage

/// The links a crawler follows from an HTML page: `a` and `area` hrefs, frames and iframes, and
/// the canonical link, resolved against the document's base URL. Parsed with HeadlessPage's
/// `HTMLDocument` (libxml2).
enum LinkExtractor {
    static func links(in body: Data, url: URL, contentType: String?) -> [URL] {
        guard let document = HTMLDocument(data: body, url: url, charset: charset(of: contentType)) else { return [] }
        var base = url
        if let href = document.xpath("//base[@href]").first?.attribute("href"), let resolved = URL(string: href, relativeTo: url) {
            base = resolved.absoluteURL
        }
        var found: [URL] = []
        for element in document.xpath("//a[@href] | //area[@href] | //iframe[@src] | //frame[@src] | //link[@href]") {
            let reference: String?
            switch element.name {
            case "iframe", "frame": reference = element.attribute("src")
            case "link":
                let rel = (element.attribute("rel") ?? "").lowercased().split(whereSeparator: { $0.isWhitespace })
                reference = rel.contains("canonical") ? element.attribute("href") : nil
            default: reference = element.attribute("href")
            }
            guard let text = reference?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty, !text.hasPrefix("#"),
                  let resolved = URL(string: text, relativeTo: base)
                    ?? text.addingPercentEncoding(withAllowedCharacters: .urlFragmentAllowed).flatMap({ URL(string: $0, relativeTo: base) }),
                  let scheme = resolved.scheme?.lowercased(), scheme == "http" || scheme == "https" else { continue }
            found.append(resolved.absoluteURL)
        }
        return found
    }

    /// The URLs a sitemap lists (`urlset`) or the sitemaps a sitemap index names
    /// (`sitemapindex`), from XML or gzip XML; nil when `body` is not a sitemap. Read with
    /// libxml2's forgiving HTML parser, which keeps unknown elements such as `loc`.
    static func sitemapLocations(in body: Data, url: URL) -> [URL]? {
        let xml = Gunzip.isGzip(body) ? Gunzip.inflate(body) : body
        guard let xml, let head = String(data: xml.prefix(1024), encoding: .utf8),
              head.contains("<urlset") || head.contains("<sitemapindex"),
              let document = HTMLDocument(data: xml, url: url, charset: "UTF-8") else { return nil }
        return document.xpath("//loc").compactMap { element in
            URL(string: element.text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    /// Whether a response may be a sitemap: XML or gzip by type, or a name ending in .xml or .xml.gz.
    static func mayBeSitemap(_ contentType: String?, url: URL) -> Bool {
        let type = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        return sitemapTypes.contains(type)
            || url.path.hasSuffix(".xml") || url.path.hasSuffix(".xml.gz")
    }

    /// The media types a sitemap (plain or gzipped) may come as.
    static let sitemapTypes = ["application/xml", "text/xml", "application/gzip", "application/x-gzip"]

    /// Whether a Content-Type names HTML (or none was given and the crawler must guess).
    static func isHTML(_ contentType: String?) -> Bool {
        guard let contentType else { return true }
        let type = contentType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        return type == "text/html" || type == "application/xhtml+xml"
    }

    private static func charset(of contentType: String?) -> String? {
        guard let contentType else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == "charset" { return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        }
        return nil
    }
}
