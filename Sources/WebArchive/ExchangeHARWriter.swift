import Foundation
import HeadlessPage
import RelayFetch

/// Writes recorded exchanges (an OAuth flow's) as HAR 1.2, with credentials redacted so the file
/// can be shared: Authorization, Cookie and Set-Cookie values; codes, tokens, passwords, client
/// secrets, assertions, state and nonce in queries, fragments, form bodies and JSON bodies, also
/// nested inside other parameters' URL-encoded values and in Location and Referer headers (see
/// `CredentialRedactor`); every value so found wherever else it appears; and any string in
/// `secrets` wherever it appears. Bodies other than JSON are left out (size only). The last two
/// are blanked in every string of the finished tree (names, values, JSON bodies before they
/// become text) before it is serialized: JSON's escaping would hide a secret holding `"` or `\`
/// from a search made in the file's text. `includingSensitiveData` writes every value as it was
/// (a file for the tester's own eyes); request bodies other than urlencoded ones stay out.
public enum ExchangeHARWriter {
    static let redacted = HARRedaction.redacted

    public static func data(for exchanges: [RecordedExchange], title: String, redacting secrets: [String],
                            includingSensitiveData: Bool = false, creatorVersion: String = RelayFetchVersion.current) throws -> Data {
        let started = exchanges.first?.startedAt ?? Date()
        var redactor = HARRedaction(enabled: !includingSensitiveData)
        let entries = exchanges.map { entry($0, &redactor) }
        let log = HARLog(log: .init(creator: .init(version: creatorVersion), pages: [
            .init(startedDateTime: HARWriter.iso8601(started), id: "flow", title: title, pageTimings: .init(onContentLoad: -1, onLoad: -1)),
        ], entries: entries))
        return try log.encoded(redact: redactor.finishing(secrets: secrets), formatting: [.prettyPrinted, .withoutEscapingSlashes])
    }

    private static func entry(_ exchange: RecordedExchange, _ redactor: inout HARRedaction) -> HARLog.Entry {
        let request = exchange.request
        let response = exchange.response
        let url = redactor.url(request.url.absoluteString)
        var postData: HARLog.PostData?
        if let body = request.body {
            let mimeType = request.headerFields.first { $0.name.lowercased() == "content-type" }?.value ?? "application/octet-stream"
            if mimeType.hasPrefix(FormEncoding.urlEncoded.rawValue) {
                let clean = redactor.form(String(decoding: body, as: UTF8.self))
                postData = .init(mimeType: mimeType, params: CredentialRedactor.pairs(clean).map { .init(name: $0.name, value: $0.value) }, text: redacted)
            } else {
                postData = .init(mimeType: mimeType, text: redacted)
            }
        }
        let harRequest = HARLog.Request(method: request.method, url: url, httpVersion: HARWriter.version(response.httpVersion),
                                        headers: redactor.headers(request.headerFields), queryString: HARRedaction.queryString(of: url),
                                        postData: postData, bodySize: request.body?.count ?? 0)
        let mimeType = response.value(forHeaderField: "Content-Type") ?? "x-unknown"
        var content = HARLog.Content(size: exchange.body.count, mimeType: mimeType)
        if mimeType.lowercased().contains("json"), let json = try? JSONSerialization.jsonObject(with: exchange.body) {
            content.json = redactor.json(json)
        }
        let location = response.value(forHeaderField: "Location").map { redactor.url($0) } ?? ""
        let timing = HARTimings(response.timings, duration: exchange.duration, relayed: !response.relayHops.isEmpty)
        let harResponse = HARLog.Response(status: response.statusCode, httpVersion: HARWriter.version(response.httpVersion),
                                          headers: redactor.headers(response.headerFields), content: content,
                                          redirectURL: location, bodySize: exchange.body.count)
        return HARLog.Entry(pageref: "flow", startedDateTime: HARWriter.iso8601(exchange.startedAt), time: timing.time,
                            request: harRequest, response: harResponse, timings: timing.timings,
                            relayChain: response.relayHops, relayChainTimings: HARWriter.relayChainTimings(response.relayHopTimings))
    }
}
