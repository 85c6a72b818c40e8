import Foundation
import RelayFetch

/// Loads a page the way a private embedded browser would: the HTML, then every subresource it
/// (and its style sheets and frames) needs, concurrently, all through the session's relays and
/// into the session's memory-only store. No JavaScript runs.
public final class PageLoader: @unchecked Sendable {
    /// Limits and switches for a load.
    public struct Options: Sendable {
        /// How deep frames inside frames are loaded.
        public var frameDepth = 2
        /// Requests in flight at once. Origin connections are HTTP/2 (multiplexed) as a rule, so
        /// the limits are well above HTTP/1.1 browsers' six per host; over HTTP/1.1 libcurl still
        /// opens one connection per request in flight.
        public var maximumConcurrentRequests = 64
        public var maximumConcurrentRequestsPerOrigin = 32
        /// Meta refreshes followed (0 turns them off).
        public var maximumMetaRefreshes = 3
        /// Keep bodies in the result (for archives).
        public var keepBodies = false
        /// Seconds the whole page may take; subresources still missing then fail with a timeout.
        public var pageTimeout: Double = 60
        /// Seconds one subresource may take.
        public var resourceTimeout: Double = 30
        public init() {}
    }

    public let session: Session
    public let options: Options

    public init(session: Session, options: Options = Options()) {
        self.session = session
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
            let scheduler = SubresourceScheduler(loader: self, pageURL: target, deadline: deadline, progress: progress)
            let scanner = StreamingScanner { scheduler.submit($0) }
            var main = PageResource(url: target, kind: .other, referrer: nil, startedAt: Date())
            var request = HTTPRequest(url: target, headerFields: [("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")])
            request.timeout = deadline.timeIntervalSinceNow
            let (data, response) = try await session.data(for: request) { scanner.feed($1, from: $0) }
            await scanner.settle()
            main.record(response: response, body: data, request: request, keepBody: options.keepBodies)
            scheduler.markSeen(response.url)
            let document = try parse(data, response: response)
            // The complete document may name what the streaming pass could not see yet (the
            // last chunk, or a page whose charset the header gave): submit it too; seen URLs are skipped.
            scheduler.submit(SubresourceScanner.references(in: document, baseURL: response.url).map { ($0, response.url, 0) })
            let resources = await scheduler.finish()
            if refreshes < options.maximumMetaRefreshes, let next = MetaRefresh.target(in: document, base: response.url) {
                refreshes += 1
                target = next
                continue
            }
            return Page(url: response.url, statusCode: response.statusCode, headerFields: response.headerFields, document: document,
                        main: main, resources: resources, startedAt: started, loadTime: Date().timeIntervalSince(started))
        }
    }

    func parse(_ data: Data, response: HTTPResponse) throws -> HTMLDocument {
        guard let document = HTMLDocument(data: data, url: response.url, charset: ContentType(response).charset) else {
            throw FetchError(.transfer("\(response.url.absoluteString) could not be parsed as HTML"))
        }
        return document
    }
}

extension PageResource {
    mutating func record(response: HTTPResponse, body: Data, request: HTTPRequest, keepBody: Bool) {
        statusCode = response.statusCode
        httpVersion = response.httpVersion
        mimeType = ContentType(response).mimeType
        size = body.count
        requestHeaderFields = request.headerFields
        responseHeaderFields = response.headerFields
        duration = Date().timeIntervalSince(startedAt)
        timings = response.timings
        relayChain = response.relayHops
        if keepBody { self.body = body }
    }
}

/// The parts of a Content-Type header a loader needs.
struct ContentType {
    let mimeType: String?
    let charset: String?

    init(_ response: HTTPResponse) {
        let value = response.value(forHeaderField: "Content-Type") ?? ""
        let parts = value.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        mimeType = parts.first.flatMap { $0.isEmpty ? nil : $0.lowercased() }
        charset = parts.dropFirst().first { $0.lowercased().hasPrefix("charset=") }
            .map { String($0.dropFirst(8)).trimmingCharacters(in: CharacterSet(charactersIn: "\"'")) }
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
