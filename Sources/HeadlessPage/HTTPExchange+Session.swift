import Foundation
import RelayFetch

extension HTTPExchange {
    /// The exchange a session made of `request` and `response`: the request as sent (method,
    /// fields, body), the response's head, timings and relay chain. `mimeType` is how the
    /// producer reads the body's type (the page loader keeps the media type, a flow's recorder
    /// the whole Content-Type), so each archive keeps writing what it wrote.
    public init(request: HTTPRequest, response: HTTPResponse, mimeType: String?, body: Body, bodySize: Int,
                startedAt: Date, duration: Double) {
        self.init(request: .init(method: request.method, url: request.url, headerFields: request.headerFields, body: request.body),
                  response: .init(statusCode: response.statusCode, httpVersion: response.httpVersion,
                                  headerFields: response.headerFields, mimeType: mimeType),
                  body: body, bodySize: bodySize, startedAt: startedAt, duration: duration, timings: response.timings,
                  relayChain: response.relayHops, relayHopTimings: response.relayHopTimings)
    }

    /// A page load's exchange, finished now: the body's media type, the body kept in memory when
    /// `keepBody` (an archive needs it).
    static func loaded(_ request: HTTPRequest, response: HTTPResponse, body: Data, startedAt: Date, keepBody: Bool) -> HTTPExchange {
        HTTPExchange(request: request, response: response, mimeType: response.contentType.mediaType, body: keepBody ? .data(body) : .none,
                     bodySize: body.count, startedAt: startedAt, duration: Date().timeIntervalSince(startedAt))
    }

    /// A page load's exchange that got no response, finished now: what was asked (no fields:
    /// none were recorded for a load that failed), and why it failed.
    static func failed(_ url: URL, startedAt: Date, error: String) -> HTTPExchange {
        HTTPExchange(request: .init(method: "GET", url: url, headerFields: []),
                     response: .init(statusCode: nil, httpVersion: nil, headerFields: [], mimeType: nil),
                     body: .none, bodySize: 0, startedAt: startedAt, duration: Date().timeIntervalSince(startedAt), error: error)
    }
}
