import Foundation
import HeadlessPage
import HTTPCore

/// The links a crawler follows from an HTML page: `a` and `area` hrefs, frames and iframes, and
/// the canonical link, as written, with the document's base URL to resolve them against (and
/// the robots metas that may forbid following them). Read
/// by `HTMLLinkScanner` in one pass; a page it declines (links beyond ASCII, a UTF-16 or UTF-32
/// page) is parsed with HeadlessPage's `HTMLDocument` (libxml2).
enum LinkExtractor {
    /// The page's links, its base URL (the document's URL unless a base href changes it), and
    /// its metas named in `metaNames` (lower case).
    static func links(in body: Data, url: URL, contentType: String?, metaNames: Set<String> = []) -> HTMLLinks {
        let charset = ContentType(contentType).charset
        let asciiCompatible = charset.map { !$0.contains("16") && !$0.contains("32") } ?? true
        let scanned = asciiCompatible ? body.withUnsafeBytes { HTMLLinkScanner.scan($0, metaNames: metaNames) } : nil
        var page = scanned ?? parsed(body, url: url, charset: charset, metaNames: metaNames)
        var base = url.absoluteString
        if let baseHref = page.base {
            let resolved = URLReference(baseHref).resolved(against: URLReference(base))
            if let scheme = resolved.scheme, let authority = resolved.authority {
                base = "\(scheme)://\(authority)\(resolved.path)" + (resolved.query.map { "?" + $0 } ?? "")
            }
        }
        page.base = base
        // A fragment alone is a place in this page, not a link to follow.
        page.references = page.references.filter { reference in
            reference.utf8.contains { $0 > 0x20 } && reference.utf8.first { $0 > 0x20 } != UInt8(ascii: "#")
        }
        return page
    }

    /// The base href, the links and the metas named in `metaNames`, from libxml2's parse of
    /// the whole document.
    static func parsed(_ body: Data, url: URL, charset: String?, metaNames: Set<String> = []) -> HTMLLinks {
        guard let document = HTMLDocument(data: body, url: url, charset: charset) else { return HTMLLinks(base: nil, references: [], metas: []) }
        let base = document.xpath("//base[@href]").first?.attribute("href")
        let references = document.xpath("//a[@href] | //area[@href] | //iframe[@src] | //frame[@src] | //link[@href]").compactMap { element -> String? in
            switch element.name {
            case "iframe", "frame": return element.attribute("src")
            case "link":
                let rel = (element.attribute("rel") ?? "").lowercased().split(whereSeparator: { $0.isWhitespace })
                return rel.contains("canonical") ? element.attribute("href") : nil
            default: return element.attribute("href")
            }
        }
        let metas = metaNames.isEmpty ? [] : document.xpath("//meta[@name and @content]").compactMap { element -> (name: String, content: String)? in
            guard let name = element.attribute("name")?.lowercased(), metaNames.contains(name), let content = element.attribute("content") else { return nil }
            return (name, content)
        }
        return HTMLLinks(base: base, references: references, metas: metas)
    }

    /// The URLs a sitemap lists (`urlset`) or the sitemaps a sitemap index names
    /// (`sitemapindex`), from XML or gzip XML; nil when `body` is not a sitemap. Read with
    /// libxml2's forgiving HTML parser, which keeps unknown elements such as `loc`.
    static func sitemapLocations(in body: Data, url: URL) -> [String]? {
        let xml = Gunzip.isGzip(body) ? Gunzip.inflate(body) : body
        guard let xml, let head = String(data: xml.prefix(1024), encoding: .utf8),
              head.contains("<urlset") || head.contains("<sitemapindex"),
              let document = HTMLDocument(data: xml, url: url, charset: "UTF-8") else { return nil }
        return document.xpath("//loc").map { $0.text.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    /// URLs taken from one sitemap: the sitemap protocol's own limit (sitemaps.org).
    static let maximumSitemapLocations = 50_000

    /// Whether a response may be a sitemap: XML or gzip by type, or a name ending in .xml or .xml.gz.
    static func mayBeSitemap(_ contentType: String?, url: URL) -> Bool {
        return sitemapTypes.contains(ContentType(contentType).mediaType ?? "")
            || url.path.hasSuffix(".xml") || url.path.hasSuffix(".xml.gz")
    }

    /// The media types a sitemap (plain or gzipped) may come as.
    static let sitemapTypes = ["application/xml", "text/xml", "application/gzip", "application/x-gzip"]

    /// Whether a Content-Type names HTML (or none was given and the crawler must guess).
    static func isHTML(_ contentType: String?) -> Bool {
        guard contentType != nil else { return true }
        let type = ContentType(contentType).mediaType
        return type == "text/html" || type == "application/xhtml+xml"
    }
}
