import Foundation
import HTTPCore
import HeadlessPage

/// One HTTP exchange as a WARC file records it: what was asked, what came back and when. Built
/// by a crawler for each page it fetches; `WARCWriter` writes it as the `HTTPExchange` it gives.
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

extension WARCExchange {
    /// This exchange as the record every archive writer reads (a GET whose body was kept whole).
    public var exchange: HTTPExchange {
        HTTPExchange(request: .init(method: "GET", url: url, headerFields: requestHeaderFields, body: nil),
                     response: .init(statusCode: statusCode, httpVersion: nil, headerFields: responseHeaderFields, mimeType: nil),
                     body: .data(body), bodySize: body.count, startedAt: startedAt, duration: 0)
    }
}
