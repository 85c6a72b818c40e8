import HTTPCore
import Foundation

/// Oblivious HTTP (RFC 9458): the request is encapsulated to the gateway's key and POSTed to
/// the relay resource, which `carrier` reaches (direct, or through a relay chain); the relay
/// sees who asks but not what, the gateway what but not who.
struct ObliviousRoute: Route {
    let relayURL: URL
    let keyConfig: OHTTPKeyConfigRef
    /// The relay's own header fields, on the POST to it only.
    let relayHeaderFields: HTTPFields
    let carrier: any CurlRoute

    var hopNames: [String] { carrier.hopNames + ["ohttp:" + relayURL.absoluteString] }

    func exchange(_ request: HTTPRequest, in session: Session, onBodyChunk: (@Sendable (URL, Data) -> Void)?) async throws -> (Data, HTTPResponse) {
        var request = request
        if let stream = request.bodyStream {
            // The one sealed message holds the whole body.
            request.body = try await stream.collect(upTo: session.configuration.maximumResponseSize)
            request.bodyStream = nil
        }
        let (post, context) = try ObliviousExchange.encapsulate(request, route: self)
        let (sealed, relayResponse) = try await carrier.exchange(post, in: session, onBodyChunk: nil)
        var (body, response) = try ObliviousExchange.decapsulate(sealed, relayResponse: relayResponse, context: context, for: request, route: self)
        // One sealed message: the body has arrived with the header, so it is only dropped.
        if !request.wantsBody(status: response.statusCode, contentType: response.value(forHeaderField: "Content-Type")) {
            (body, response.bodySkipped) = (Data(), true)
        }
        onBodyChunk?(request.url, body)
        return (body, response)
    }

    /// The response is one sealed message: there is nothing to stream, so it is collected (with
    /// the session's cookies and cache, as `data(for:)` does) and handed over whole.
    func streamingExchange(_ original: HTTPRequest, in session: Session, timeLimit: Double) async throws -> (ResponseBody, HTTPResponse) {
        let (data, response) = try await session.exchange(original, onBodyChunk: nil)
        return (ResponseBody(data: data), response)
    }
}
