import Foundation
import HTTPCore

/// One HTTP exchange as a WARC file records it: what was asked, what came back and when. Built
/// from a page's resources by `WARCWriter.data(for:)`, or by a crawler for each page it fetches.
public struct WARCExchange: Sendable {
    public var url: URL
    public var requestHeaderFields: HTTPFields
    public var statusCode: Int
    public var responseHeaderFields: HTTPFields
    /// The decoded body.
    public var body: Data
    public var startedAt: Date

    public init(url: URL, requestHeaderFields: HTTPFields, statusCode: Int,
                responseHeaderFields: HTTPFields, body: Data, startedAt: Date) {
        self.url = url
        self.requestHeaderFields = requestHeaderFields
        self.statusCode = statusCode
        self.responseHeaderFields = responseHeaderFields
        self.body = body
        self.startedAt = startedAt
    }
}
