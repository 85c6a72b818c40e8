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
        let log: [String: Any] = [
            "log": [
                "version": "1.2",
                "creator": ["name": "relayfetch", "version": creatorVersion],
                "pages": [["startedDateTime": HARWriter.iso8601(started), "id": "flow", "title": title,
                           "pageTimings": ["onContentLoad": -1, "onLoad": -1]] as [String: Any]],
                "entries": entries,
            ] as [String: Any],
        ]
        return try JSONSerialization.data(withJSONObject: redactor.finished(log, secrets: secrets), options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }

    private static func entry(_ exchange: RecordedExchange, _ redactor: inout HARRedaction) -> [String: Any] {
        let request = exchange.request
        let response = exchange.response
        let url = redactor.url(request.url.absoluteString)
        var requestObject: [String: Any] = [
            "method": request.method, "url": url, "httpVersion": HARWriter.version(response.httpVersion),
            "cookies": [], "headers": redactor.headers(request.headerFields), "headersSize": -1, "bodySize": request.body?.count ?? 0,
            "queryString": HARRedaction.queryString(of: url),
        ]
        if let body = request.body {
            let mimeType = request.headerFields.first { $0.name.lowercased() == "content-type" }?.value ?? "application/octet-stream"
            if mimeType.hasPrefix(FormEncoding.urlEncoded.rawValue) {
                let clean = redactor.form(String(decoding: body, as: UTF8.self))
                requestObject["postData"] = ["mimeType": mimeType, "params": CredentialRedactor.pairs(clean).map {
                    ["name": $0.name, "value": $0.value]
                }, "text": redacted] as [String: Any]
            } else {
                requestObject["postData"] = ["mimeType": mimeType, "text": redacted]
            }
        }
        let mimeType = response.value(forHeaderField: "Content-Type") ?? "x-unknown"
        var content: [String: Any] = ["size": exchange.body.count, "mimeType": mimeType]
        if mimeType.lowercased().contains("json"), let json = try? JSONSerialization.jsonObject(with: exchange.body) {
            content["text"] = HARRedaction.JSONText(value: redactor.json(json))
        }
        let location = response.value(forHeaderField: "Location").map { redactor.url($0) } ?? ""
        let timing = HARTimings(response.timings, duration: exchange.duration, relayed: !response.relayHops.isEmpty)
        return [
            "pageref": "flow",
            "startedDateTime": HARWriter.iso8601(exchange.startedAt),
            "time": timing.time,
            "request": requestObject,
            "response": [
                "status": response.statusCode, "statusText": "", "httpVersion": HARWriter.version(response.httpVersion), "cookies": [],
                "headers": redactor.headers(response.headerFields),
                "content": content, "redirectURL": location, "headersSize": -1, "bodySize": exchange.body.count,
            ] as [String: Any],
            "cache": [:] as [String: Any],
            "timings": timing.timings,
            "_relayChain": response.relayHops,
            "_relayChainTimings": HARWriter.relayChainTimings(response.relayHopTimings),
        ]
    }
}
