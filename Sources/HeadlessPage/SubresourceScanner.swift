import Foundation
import RelayFetch
import HTMLDOM
import CSSStyle

/// What kind of subresource a URL is, which decides how its body is scanned in turn.
public enum SubresourceKind: String, Sendable, Codable {
    case stylesheet, script, image, font, media, frame, manifest, icon, preload, object, other
}

/// A URL a page needs, found in its HTML or CSS.
public struct SubresourceReference: Sendable, Equatable {
    public let url: URL
    public let kind: SubresourceKind
    /// The element's own `referrerpolicy` attribute, when it has one.
    var referrerPolicy: ReferrerPolicy?
    /// A frame's own viewport (its `width` and `height`), against which its media queries run.
    var frameViewport: Viewport?
    /// The element, where its request differs from its kind's (`embed`, SVG `use`, and
    /// `preload-AS` for a `<link rel=preload as=AS>`).
    var element: String?
}

/// What a scan reports: every URL any viewport or medium could need (complete), or what a
/// browser without JavaScript loads for one viewport before style sheets are applied.
enum ScanMode: Sendable {
    case complete
    case browser(Viewport)
}

/// Finds the URLs a document's markup names. Complete mode: every URL a browser could need to
/// render it in any viewport or medium (images and every srcset candidate, scripts, style
/// sheets and what they import or reference, icons, preloads, manifests, frames, media, objects
/// and SVG references). Browser mode: what Chromium with JavaScript off requests from markup
/// for one viewport (one image candidate, no scripts, one icon, the preloads it honours);
/// images and fonts named by CSS then come from the cascade (`StyleResolver`). Never links,
/// form actions, canonical or alternate links, data: URLs or strings in scripts.
///
/// A value scans one document element by element, in document order, so a streaming parse can
/// hand it only what each chunk added: the base URL (`<base href>`) and the referrer policy
/// (`<meta name="referrer">`) apply from where they appear.
struct SubresourceScanner {
    private(set) var base: URL
    /// The document's referrer policy as far as scanned; nil when it named none.
    private(set) var policy: ReferrerPolicy?
    private let documentURL: URL
    private var baseSeen = false
    let mode: ScanMode
    /// True once an icon link was seen (browser mode asks for /favicon.ico otherwise).
    private(set) var namesIcon = false

    init(documentURL: URL, mode: ScanMode = .complete) {
        self.documentURL = documentURL
        self.mode = mode
        base = documentURL
    }

    /// Every reference of a whole document, with its first `<base href>` and last referrer
    /// meta applied to all elements; stops when `visit` returns false. Returns the policy.
    @discardableResult
    static func scan(_ document: HTMLDocument, baseURL: URL, mode: ScanMode = .complete, _ visit: (SubresourceReference) -> Bool) -> ReferrerPolicy? {
        scanner(document, baseURL: baseURL, mode: mode, visit).policy
    }

    /// Scans a whole document; the scanner afterwards tells its base, policy and whether it named an icon.
    static func scanner(_ document: HTMLDocument, baseURL: URL, mode: ScanMode, _ visit: (SubresourceReference) -> Bool) -> SubresourceScanner {
        var scanner = SubresourceScanner(documentURL: baseURL, mode: mode)
        if let base = document.xpath("//base[@href]").first { scanner.noteBase(base) }
        scanner.policy = metaPolicy(in: document)
        document.forEachElement { scanner.scan($0, visit) }
        return scanner
    }

    /// The references of a whole document, as a list.
    static func references(in document: HTMLDocument, baseURL: URL, mode: ScanMode = .complete) -> [SubresourceReference] {
        var found: [SubresourceReference] = []
        scan(document, baseURL: baseURL, mode: mode) { found.append($0); return true }
        return found
    }

    /// Scans one element (its attributes, and a `<style>` element's text); false when `visit` said stop.
    mutating func scan(_ element: HTMLElement, _ visit: (SubresourceReference) -> Bool) -> Bool {
        let base = self.base
        let own = element.attribute("referrerpolicy").flatMap(ReferrerPolicy.init(parsing:))
        var going = true
        func add(_ text: String?, _ kind: SubresourceKind, frame: Viewport? = nil) {
            guard going, let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty,
                  let url = SubresourceURL.resolve(text, against: base) else { return }
            let name = element.name
            let hint: String? = switch name {
            case "embed", "use": name
            case "link" where kind == .preload: "preload-" + (element.attribute("as")?.lowercased() ?? "")
            default: nil
            }
            going = visit(SubresourceReference(url: url, kind: kind, referrerPolicy: own, frameViewport: frame, element: hint))
        }
        if case .browser(let viewport) = mode {
            scanLikeABrowser(element, viewport: viewport, add)
            return going
        }
        switch element.name {
        case "base": noteBase(element)
        case "meta": notePolicy(element)
        case "img":
            add(element.attribute("src"), .image)
            Self.srcsetURLs(element.attribute("srcset")).forEach { add($0, .image) }
        case "source":
            Self.srcsetURLs(element.attribute("srcset")).forEach { add($0, element.parent?.name == "picture" ? .image : .media) }
            add(element.attribute("src"), .media)
        case "script": add(element.attribute("src"), .script)
        case "link": Self.linkReference(element).map { add(element.attribute("href"), $0) }
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
        return going
    }

    /// Browser mode: what Chromium with JavaScript off requests for this element's markup.
    private mutating func scanLikeABrowser(_ element: HTMLElement, viewport: Viewport, _ add: (String?, SubresourceKind, Viewport?) -> Void) {
        let media = MediaQuery(viewport: viewport)
        switch element.name {
        case "base": noteBase(element)
        case "meta": notePolicy(element)
        case "img": add(ImageCandidates.choice(for: element, media: media), .image, nil)
        case "source" where !Self.isInPicture(element): add(element.attribute("src"), .media, nil)
        case "link":
            guard let kind = Self.browserLinkReference(element) else { return }
            if kind == .icon {
                guard !namesIcon else { return }  // one favicon per page
                namesIcon = true
            }
            add(element.attribute("href"), kind, nil)
        case "style":
            CSSURLScanner.references(in: element.text).filter(\.isImport).forEach { add($0.url, .stylesheet, nil) }
        case "iframe", "frame":
            let width = element.attribute("width").flatMap { Int($0) } ?? (element.name == "iframe" ? 300 : viewport.width)
            let height = element.attribute("height").flatMap { Int($0) } ?? (element.name == "iframe" ? 150 : viewport.height)
            add(element.attribute("src"), .frame, Viewport(width: max(width, 1), height: max(height, 1), devicePixelRatio: viewport.devicePixelRatio))
        case "video":
            add(element.attribute("src"), .media, nil)
            add(element.attribute("poster"), .image, nil)
        case "audio": add(element.attribute("src"), .media, nil)
        case "track" where element.attribute("default") != nil: add(element.attribute("src"), .media, nil)
        case "object": add(element.attribute("data"), .object, nil)
        case "embed": add(element.attribute("src"), .object, nil)
        case "input" where element.attribute("type")?.lowercased() == "image": add(element.attribute("src"), .image, nil)
        case "image", "use": add(element.attribute("href") ?? element.attribute("xlink:href"), .image, nil)
        default: break
        }
    }

    /// libxml2 does not know `<source>` is void: later sources nest inside earlier ones.
    private static func isInPicture(_ source: HTMLElement) -> Bool {
        var parent = source.parent
        while let current = parent, current.name == "source" { parent = current.parent }
        return parent?.name == "picture"
    }

    /// The links Chromium fetches with scripting off: style sheets (alternate ones too, at low
    /// priority, but never disabled ones), one icon, the manifest, prefetches, and preloads of
    /// the destinations it honours (fetch, font, image, style, track).
    private static func browserLinkReference(_ element: HTMLElement) -> SubresourceKind? {
        let tokens = Set((element.attribute("rel") ?? "").lowercased().split(whereSeparator: { $0.isWhitespace }).map(String.init))
        if tokens.contains("stylesheet") { return element.attribute("disabled") == nil ? .stylesheet : nil }
        if tokens.contains("alternate") { return nil }
        if tokens.contains("icon") { return .icon }
        if tokens.contains("manifest") { return .manifest }
        if tokens.contains("prefetch") { return .other }
        if tokens.contains("preload") {
            // A preloaded sheet is fetched, not parsed: its imports wait until a <link> uses it.
            switch element.attribute("as")?.lowercased() {
            case "font": return .font
            case "image": return .image
            case "style", "fetch", "track": return .preload
            default: return nil
            }
        }
        return nil
    }

    /// The first `<base href>` sets the base for what follows.
    private mutating func noteBase(_ element: HTMLElement) {
        guard !baseSeen, let href = element.attribute("href"), let url = URL(string: href, relativeTo: documentURL) else { return }
        baseSeen = true
        base = url.absoluteURL
    }

    /// `<meta name="referrer" content="...">`: a later one replaces an earlier one.
    private mutating func notePolicy(_ element: HTMLElement) {
        if let policy = Self.policy(of: element) { self.policy = policy }
    }

    /// The policy the last `<meta name="referrer">` of a whole document names.
    static func metaPolicy(in document: HTMLDocument) -> ReferrerPolicy? {
        document.xpath("//meta[@name]").compactMap(policy(of:)).last
    }

    private static func policy(of meta: HTMLElement) -> ReferrerPolicy? {
        guard meta.attribute("name")?.lowercased() == "referrer" else { return nil }
        return meta.attribute("content").flatMap(ReferrerPolicy.init(parsing:))
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
}
