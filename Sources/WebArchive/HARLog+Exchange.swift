import Foundation
import HeadlessPage
import RelayFetch

extension HARLog.Entry {
    /// How a response body goes into the file.
    enum BodyStyle {
        /// Every kept body as base64 text (a page's resources).
        case base64
        /// JSON bodies as text with credential members redacted; the others left out, size only
        /// (a flow's exchanges, whose other bodies are HTML pages full of tokens).
        case redactedJSON
    }

    /// The entry for one exchange, its URLs, headers and bodies passed through `redactor`.
    init(_ exchange: HTTPExchange, pageref: String, bodies: BodyStyle, resourceType: String? = nil, _ redactor: inout HARRedaction) {
        let url = redactor.url(exchange.request.url.absoluteString)
        var postData: HARLog.PostData?
        if let body = exchange.request.body {
            let mimeType = exchange.request.headerFields.first { $0.name.lowercased() == "content-type" }?.value ?? "application/octet-stream"
            if mimeType.hasPrefix(FormEncoding.urlEncoded.rawValue) {
                let clean = redactor.form(String(decoding: body, as: UTF8.self))
                postData = .init(mimeType: mimeType, params: CredentialRedactor.pairs(clean).map { .init(name: $0.name, value: $0.value) },
                                 text: HARRedaction.redacted)
            } else {
                postData = .init(mimeType: mimeType, text: HARRedaction.redacted)
            }
        }
        let head = exchange.response
        let request = HARLog.Request(method: exchange.request.method, url: url, httpVersion: HARWriter.version(head.httpVersion ?? "HTTP/1.1"),
                                     headers: redactor.headers(exchange.request.headerFields), queryString: HARRedaction.queryString(of: url),
                                     postData: postData, bodySize: exchange.request.body?.count ?? 0)
        let mimeType = head.mimeType ?? "x-unknown"
        var content = HARLog.Content(size: exchange.bodySize, mimeType: mimeType)
        switch bodies {
        case .base64:
            // A spooled body is read back whole: HAR holds bodies as base64 text inside one JSON document.
            if let body = (try? exchange.wholeBody()) ?? nil { content.text = body.base64EncodedString(); content.encoding = "base64" }
        case .redactedJSON:
            if mimeType.lowercased().contains("json"), let body = (try? exchange.wholeBody()) ?? nil,
               let json = try? JSONSerialization.jsonObject(with: body) {
                content.json = redactor.json(json)
            }
        }
        let redirect = head.headerFields.first { $0.name.lowercased() == "location" }.map { redactor.url($0.value) } ?? ""
        let response = HARLog.Response(status: head.statusCode ?? 0, httpVersion: HARWriter.version(head.httpVersion ?? ""),
                                       headers: redactor.headers(head.headerFields), content: content,
                                       redirectURL: redirect, bodySize: exchange.bodySize)
        let timing = HARTimings(exchange.timings, duration: exchange.duration, relayed: !exchange.relayChain.isEmpty)
        self.init(pageref: pageref, startedDateTime: HARWriter.iso8601(exchange.startedAt), time: timing.time,
                  request: request, response: response, timings: timing.timings,
                  relayChain: exchange.relayChain, relayChainTimings: HARWriter.relayChainTimings(exchange.relayHopTimings),
                  resourceType: resourceType, error: exchange.error)
    }
}
