import Foundation
import HTTPCore
import RelayFetch
import HTMLDOM
import CSSStyle

/// Loads a page the way a private embedded browser would: the HTML, then every subresource it
/// (and its style sheets and frames) needs, concurrently, all through the session's relays and
/// into the session's memory-only store. No JavaScript runs.
public final class PageLoader: Sendable {
    /// Limits and switches for a load. The limits bound one page's work, whatever the server
    /// sends; a load that reaches one goes on with what fits and reports it in `Page.limitsReached`.
    public struct Options: Sendable {
        /// How deep frames inside frames are loaded (0: a frame's document, nothing in it).
        /// At most `frameDepthRange.upperBound` (10, as Firefox's nested content frames).
        public var frameDepth = 2
        public static let frameDepthRange = 0...10
        /// How deep `@import` chains are followed (a sheet the page names is depth 0).
        public static let importDepthRange = 0...32
        public var importDepth = 8
        /// Distinct subresources loaded for one page (page, style sheets and frames together).
        /// Heavy real pages need a few hundred; complete mode fetches every srcset candidate,
        /// so the default leaves room several times over.
        public var maximumSubresources = 2_000
        /// Bytes of the page and its subresources together (bodies as received); once reached,
        /// nothing more starts and transfers in flight stop, so the total never exceeds it.
        public var maximumPageBytes = 256 << 20
        /// Bytes of style sheet text one page scans and parses (its sheets together, in the
        /// order they arrive); the rest of a sheet past it is neither scanned for URLs nor
        /// applied. Parsed CSS costs many times its size in memory, so this bounds what a sheet
        /// of millions of rules can take, while real pages' sheets stay far below (a few MB).
        public var maximumStyleBytes = 8 << 20
        /// Rules (style, `@font-face` and `@import`) of one document's cascade; later rules do
        /// not apply. Large real sites have tens of thousands.
        public var maximumStyleRules = 100_000
        /// The referrer policy of a document that names none (`<meta name="referrer">` and an
        /// element's `referrerpolicy` attribute override it), as in browsers.
        public var referrerPolicy: ReferrerPolicy = .strictOriginWhenCrossOrigin
        /// Requests in flight at once. Origin connections are HTTP/2 (multiplexed) as a rule, so
        /// the limits are well above HTTP/1.1 browsers' six per host; over HTTP/1.1 the session
        /// queues them on at most `Session.Configuration.maximumConnectionsPerHost` connections.
        public var maximumConcurrentRequests = 64
        public var maximumConcurrentRequestsPerOrigin = 32
        /// Meta refreshes followed (0 turns them off).
        public var maximumMetaRefreshes = 3
        /// Keep bodies in the result (for archives).
        public var keepBodies = false
        /// With `keepBodies`: a folder where a subresource body the page does not parse (not
        /// HTML or CSS) that grows past `spoolThreshold` streams into an unnamed file
        /// (`SpooledBody`) instead of memory. Give the folder of the archive the user named:
        /// the file never has a name there. nil keeps every body in memory. Such bodies stream
        /// (`Session.bytes(for:)`), so they bypass the session's HTTP cache, as streams do.
        public var spoolDirectory: URL?
        /// Bytes of a body held in memory before it is spooled.
        public var spoolThreshold = 1 << 20
        /// Seconds the whole page may take; subresources still missing then fail with a timeout.
        public var pageTimeout: Double = 60
        /// Seconds one subresource may take.
        public var resourceTimeout: Double = 30
        /// What to load: what a browser loads for `viewport` (the default), or everything any
        /// viewport or medium could need (offline copies and archives).
        public var mode: LoadMode = .browser
        /// The screen browser mode loads for (1280x800 at device pixel ratio 1 by default).
        public var viewport = Viewport()
        public init() {}

        /// The defaults in complete mode.
        public static var complete: Options {
            var options = Options()
            options.mode = .complete
            return options
        }
    }

    /// Which subresources a load fetches.
    public enum LoadMode: Sendable, Equatable {
        /// What Chromium with JavaScript off requests for the viewport: style sheets (also
        /// alternate and non-matching ones, which it fetches at low priority) and their imports;
        /// images and fonts only where the cascade applies them to rendered boxes; one `srcset`
        /// / `<picture>` candidate per image; `/favicon.ico` when the page names no icon; no
        /// scripts; lazy images load (lazy loading needs scripting).
        case browser
        /// Every URL the page could need in any viewport or medium: every srcset and picture
        /// candidate, every font source, print sheets, all CSS images, scripts.
        case complete
    }

    var scanMode: ScanMode { options.mode == .complete ? .complete : .browser(options.viewport) }

    public let session: Session
    public let options: Options

    /// Depths outside their ranges are clamped into them; counts below 1 become 1.
    public init(session: Session, options: Options = Options()) {
        self.session = session
        var options = options
        options.frameDepth = min(max(options.frameDepth, Options.frameDepthRange.lowerBound), Options.frameDepthRange.upperBound)
        options.importDepth = min(max(options.importDepth, Options.importDepthRange.lowerBound), Options.importDepthRange.upperBound)
        options.maximumSubresources = max(1, options.maximumSubresources)
        options.maximumPageBytes = max(1, options.maximumPageBytes)
        options.maximumStyleBytes = max(0, options.maximumStyleBytes)
        options.maximumStyleRules = max(0, options.maximumStyleRules)
        self.options = options
    }

    /// Loads `url` and everything it needs; throws only when the page itself cannot be loaded.
    /// Subresource requests start while the HTML is still arriving.
    public func load(_ url: URL, progress: (@Sendable (PageProgress) -> Void)? = nil) async throws -> Page {
        let started = Date()
        let deadline = started.addingTimeInterval(options.pageTimeout)
        var target = url
        var refreshes = 0
        while true {
            let budget = ByteBudget(limit: options.maximumPageBytes)
            let scheduler = SubresourceScheduler(loader: self, pageURL: target, deadline: deadline, budget: budget, progress: progress)
            let defaultPolicy = options.referrerPolicy
            let scanner = StreamingScanner(mode: scanMode) { references, url, policy in
                scheduler.submit(references.map { SubresourceJob(reference: $0, referrer: url, policy: policy ?? defaultPolicy) })
            }
            let mainStarted = Date()
            var request = HTTPRequest(url: target, headerFields: FetchDestination.document.headerFields(for: target, initiator: nil))
            request.timeout = deadline.timeIntervalSinceNow
            request.byteBudget = budget
            let (data, response) = try await session.data(for: request) { scanner.feed($1, from: $0) }
            await scanner.settle()
            let main = PageResource(kind: .other, referrer: nil,
                                    exchange: .loaded(request, response: response, body: data, startedAt: mainStarted, keepBody: options.keepBodies))
            scheduler.markSeen(response.url)
            let document = try parse(data, response: response)
            // The complete document may name what the streaming pass could not see yet (the
            // last chunk, or a page whose charset the header gave): submit it too; seen URLs are
            // skipped, and the pass stops once a limit is reached.
            submitSubresources(of: document, url: response.url, defaultPolicy: defaultPolicy, to: scheduler)
            let resources = await scheduler.finish()
            if refreshes < options.maximumMetaRefreshes, let next = MetaRefresh.target(in: document, base: response.url) {
                refreshes += 1
                target = next
                continue
            }
            var page = Page(url: response.url, statusCode: response.statusCode, headerFields: response.headerFields, document: document,
                            main: main, resources: resources, startedAt: started, loadTime: Date().timeIntervalSince(started))
            page.limitsReached = scheduler.limitsReached
            return page
        }
    }

    /// Hands every subresource `document` (at `url`) names to `scheduler`, in batches, until a
    /// limit stops it. In browser mode, also `/favicon.ico` when the page names no icon, and the
    /// document for its styles to be applied once its sheets have loaded.
    func submitSubresources(of document: HTMLDocument, url: URL, defaultPolicy: ReferrerPolicy, to scheduler: SubresourceScheduler) {
        let policy = SubresourceScanner.metaPolicy(in: document) ?? defaultPolicy
        var batch: [SubresourceJob] = []
        let scanned = SubresourceScanner.scanner(document, baseURL: url, mode: scanMode) { reference in
            batch.append(SubresourceJob(reference: reference, referrer: url, policy: policy))
            guard batch.count == 256 else { return true }
            defer { batch.removeAll(keepingCapacity: true) }
            return scheduler.submit(batch)
        }
        if options.mode == .browser {
            // Chromium asks for the origin's /favicon.ico once the page loaded, when it names no icon.
            if !scanned.namesIcon, let favicon = URL(string: "/favicon.ico", relativeTo: url)?.absoluteURL {
                batch.append(SubresourceJob(reference: SubresourceReference(url: favicon, kind: .icon), referrer: url, policy: policy))
            }
            scheduler.addStyledDocument(document, baseURL: scanned.base, referrer: url, policy: policy, viewport: options.viewport)
        }
        scheduler.submit(batch)
    }

    func parse(_ data: Data, response: HTTPResponse) throws -> HTMLDocument {
        guard let document = HTMLDocument(data: data, url: response.url, charset: response.contentType.charset) else {
            throw FetchError(.transfer("\(response.url.absoluteString) could not be parsed as HTML"))
        }
        return document
    }
}

/// `<meta http-equiv="refresh" content="N; url=...">`.
enum MetaRefresh {
    static func target(in document: HTMLDocument, base: URL) -> URL? {
        for meta in document.xpath("//meta[@http-equiv]") where meta.attribute("http-equiv")?.lowercased() == "refresh" {
            guard let content = meta.attribute("content"), let range = content.range(of: "url=", options: .caseInsensitive) else { continue }
            let raw = content[range.upperBound...].trimmingCharacters(in: CharacterSet(charactersIn: " '\""))
            if let url = URL(string: raw, relativeTo: base)?.absoluteURL, url != base { return url }
        }
        return nil
    }
}
