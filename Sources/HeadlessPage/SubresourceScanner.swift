import Foundation

/// What kind of subresource a URL is, which decides how its body is scanned in turn.
public enum SubresourceKind: String, Sendable, Codable {
    case stylesheet, script, image, font, media, frame, manifest, icon, preload, object, other
}

/// A URL a page needs, found in its HTML or CSS.
public struct SubresourceReference: Sendable, Equatable {
    public let url: URL
    public let kind: SubresourceKind
}

/// Finds every URL a browser could need to render a document in any viewport or media
/// ("complete mode"): images and every srcset candidate, scripts, style sheets (and what they
/// import or reference), icons, preloads, manifests, frames, media, objects and SVG references.
/// Never links, form actions, canonical or alternate links, data: URLs or strings in scripts.
enum SubresourceScanner {
    static func references(in document: HTMLDocument, baseURL documentURL: URL) -> [SubresourceReference] {
        var base = documentURL
        if let href = document.xpath("//base[@href]").first?.attribute("href"), let url = URL(string: href, relativeTo: documentURL) {
            base = url.absoluteURL
        }
        var found: [SubresourceReference] = []
        func add(_ text: String?, _ kind: SubresourceKind) {
            guard let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty,
                  let url = resolve(text, against: base) else { return }
            found.append(SubresourceReference(url: url, kind: kind))
        }
        for element in document.elements {
            switch element.name {
            case "img":
                add(element.attribute("src"), .image)
                srcsetURLs(element.attribute("srcset")).forEach { add($0, .image) }
            case "source":
                srcsetURLs(element.attribute("srcset")).forEach { add($0, element.parent?.name == "picture" ? .image : .media) }
                add(element.attribute("src"), .media)
            case "script": add(element.attribute("src"), .script)
            case "link": linkReference(element).map { add(element.attribute("href"), $0) }
            case "style": CSSURLScanner.references(in: element.text).forEach { add($0.url, $0.isImport ? .stylesheet : .other) }
            case "iframe", "frame": add(element.attribute("src"), .frame)
            case "video":
                add(element.attribute("src"), .media)
                add(element.attribute("poster"), .image)
            case "audio", "track": add(element.attribute("src"), .media)
            case "object": add(element.attribute("data"), .object)
            case "embed": add(element.attribute("src"), .object)
            case "input" where element.attribute("type")?.lowercased() == "image": add(element.attribute("src"), .image)
            case "image", "use": add(element.attribute("href") ?? element.attribute("xlink:href"), .image)
            default: break
            }
            if let style = element.attribute("style") {
                CSSURLScanner.references(in: style).forEach { add($0.url, .image) }
            }
        }
        return found
    }

    /// Stylesheets, icons, preloads and manifests; nil for links a renderer never fetches.
    private static func linkReference(_ element: HTMLElement) -> SubresourceKind? {
        let tokens = Set((element.attribute("rel") ?? "").lowercased().split(whereSeparator: { $0.isWhitespace }).map(String.init))
        if tokens.contains("alternate") { return nil }  // alternate links (feeds, translations, alternate sheets) are never fetched
        if tokens.contains("stylesheet") { return .stylesheet }
        if tokens.contains("icon") || tokens.contains("apple-touch-icon") || tokens.contains("apple-touch-icon-precomposed") { return .icon }
        if tokens.contains("modulepreload") { return .script }
        if tokens.contains("preload") {
            switch element.attribute("as")?.lowercased() {
            case "style": return .stylesheet
            case "script": return .script
            case "font": return .font
            case "image": return .image
            default: return .preload
            }
        }
        if tokens.contains("manifest") { return .manifest }
        return nil
    }

    /// Candidate URLs of a srcset attribute ("a.png 1x, b.png 2x").
    static func srcsetURLs(_ srcset: String?) -> [String] {
        guard let srcset else { return [] }
        return srcset.split(separator: ",").compactMap { candidate in
            candidate.split(whereSeparator: { $0.isWhitespace }).first.map(String.init)
        }
    }

    /// An absolute http(s) URL with a host, fragment removed; nil for data:, javascript: and the like.
    static func resolve(_ text: String, against base: URL) -> URL? {
        guard !text.hasPrefix("#") else { return nil }  // a fragment of this very document
        let parsed = URL(string: text, relativeTo: base)
            ?? text.addingPercentEncoding(withAllowedCharacters: .urlFragmentAllowed).flatMap { URL(string: $0, relativeTo: base) }
        // "https:/x" parses as https without a host; nothing can be fetched from it.
        guard let url = parsed?.absoluteURL, url.host?.isEmpty == false,
              let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return nil }
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.fragment = nil
        return components?.url
    }
}
