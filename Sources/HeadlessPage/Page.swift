import Foundation
import RelayFetch
import HTMLDOM

/// One loaded subresource (or the page itself): its exchange, and what the page made of it (its
/// kind, the URL that referenced it). The exchange is the one record archives read
/// (`HTTPExchange`); the properties below only read it.
public struct PageResource: Sendable {
    public let kind: SubresourceKind
    /// The URL that referenced it (the page, a style sheet or a frame).
    public let referrer: URL?
    /// What was asked, what came back, how and when; the body when an archive needs it.
    public var exchange: HTTPExchange

    public init(kind: SubresourceKind, referrer: URL?, exchange: HTTPExchange) {
        self.kind = kind
        self.referrer = referrer
        self.exchange = exchange
    }

    public var url: URL { exchange.request.url }
    /// Nil when no response came.
    public var statusCode: Int? { exchange.response.statusCode }
    /// The body's size in bytes as received.
    public var size: Int { exchange.bodySize }
    /// Why it failed, when it did.
    public var error: String? { exchange.error }
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
