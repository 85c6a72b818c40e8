import Foundation
import RelayFetch
import HTMLDOM

/// One loaded subresource (or the page itself): what was asked, what came back, how and when.
public struct PageResource: Sendable {
    public let url: URL
    public let kind: SubresourceKind
    /// The URL that referenced it (the page, a style sheet or a frame).
    public let referrer: URL?
    public var statusCode: Int?
    public var httpVersion: String?
    public var mimeType: String?
    public var size: Int = 0
    public var requestHeaderFields: HTTPFields = []
    public var responseHeaderFields: HTTPFields = []
    public var startedAt: Date
    /// Seconds from start to the last byte.
    public var duration: Double = 0
    public var timings = HTTPTimings()
    /// The relay hops that carried it, nearest the client first (empty when direct).
    public var relayChain: [String] = []
    /// When this exchange opened its tunnel, each hop's timing (empty on a reused connection).
    public var relayHopTimings: [RelayHopTiming] = []
    public var error: String?
    /// The body, kept when an archive needs it.
    public var body: Data?
    /// The body instead of `body` when the loader spooled it to an unnamed file
    /// (`PageLoader.Options.spoolDirectory`); `forEachBodyChunk` reads either.
    public var spooledBody: SpooledBody?
}

/// A loaded page: the final URL and response, the parsed document, and every subresource.
public struct Page: Sendable {
    /// The URL after redirects (and meta refreshes).
    public let url: URL
    public let statusCode: Int
    public let headerFields: HTTPFields
    public let document: HTMLDocument
    /// The page's own exchange.
    public let main: PageResource
    /// Every subresource, each URL once, in the order loads finished.
    public let resources: [PageResource]
    public let startedAt: Date
    /// Seconds from the first request to the last byte of the last subresource.
    public let loadTime: Double
    /// The limits on the page's work that the load reached (empty when everything fit).
    public var limitsReached: [PageLimit] = []

    /// Bytes of the page and all its subresources.
    public var totalBytes: Int { main.size + resources.reduce(0) { $0 + $1.size } }
    public var failedResources: [PageResource] { resources.filter { $0.error != nil || ($0.statusCode ?? 0) >= 400 } }
}

/// Where a page load stands, for progress lines.
public struct PageProgress: Sendable {
    public let done: Int
    public let total: Int
    public let bytes: Int
}
