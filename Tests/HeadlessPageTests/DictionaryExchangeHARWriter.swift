import Foundation
@testable import HeadlessPage
@testable import RelayFetch
@testable import WebArchive

/// An exchange as a flow's session gave it (the shape the recorder kept before `HTTPExchange`),
/// what the reference writer reads.
struct SessionExchange {
    let request: HTTPRequest
    let response: HTTPResponse
    let body: Data
    let startedAt: Date
    let duration: Double
}

/// `ExchangeHARWriter` as it was before the Codable model (dictionaries and JSONSerialization),
/// the reference `ExchangeHAREquivalenceTests` compares with.
enum DictionaryExchangeHARWriter {
    private struct JSONText { let value: Any }

    static func data(for exchanges: [SessionExchange], title: String, redacting secrets: [String], includingSensitiveData: Bool) throws -> Data {
        let started = exchanges.first?.startedAt ?? Date()
        var redactor = HARRedaction(enabled: !includingSensitiveData)
        let entries = exchanges.map { entry($0, &redactor) }
        let log: [String: Any] = [
            "log": [
                "version": "1.2",
                "creator": ["name": "relayfetch", "version": "t"],
                "pages": [["startedDateTime": HARWriter.iso8601(started), "id": "flow", "title": title,
                           "pageTimings": ["onContentLoad": -1, "onLoad": -1]] as [String: Any]],
                "entries": entries,
            ] as [String: Any],
        ]
        let redact = redactor.finishing(secrets: secrets)
        return try JSONSerialization.data(withJSONObject: clean(log, redact), options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }

    private static func clean(_ value: Any, _ redact: (String) -> String) -> Any {
        switch value {
        case let text as String: return redact(text)
        case let body as JSONText:
            let data = try? JSONSerialization.data(withJSONObject: clean(body.value, redact), options: [.sortedKeys])
            return data.map { String(decoding: $0, as: UTF8.self) } ?? HARRedaction.redacted
        case let object as [String: Any]: return Dictionary(object.map { (redact($0.key), clean($0.value, redact)) }) { first, _ in first }
        case let array as [Any]: return array.map { clean($0, redact) }
        default: return value
        }
    }

    private static func pairs(_ list: [HARLog.NameValue]) -> [[String: String]] { list.map { ["name": $0.name, "value": $0.value] } }

    private static func entry(_ exchange: SessionExchange, _ redactor: inout HARRedaction) -> [String: Any] {
        let request = exchange.request
        let response = exchange.response
        let url = redactor.url(request.url.absoluteString)
        var requestObject: [String: Any] = [
            "method": request.method, "url": url, "httpVersion": HARWriter.version(response.httpVersion),
            "cookies": [], "headers": pairs(redactor.headers(request.headerFields)), "headersSize": -1, "bodySize": request.body?.count ?? 0,
            "queryString": pairs(HARRedaction.queryString(of: url)),
        ]
        if let body = request.body {
            let mimeType = request.headerFields.first { $0.name.lowercased() == "content-type" }?.value ?? "application/octet-stream"
            if mimeType.hasPrefix(FormEncoding.urlEncoded.rawValue) {
                let clean = redactor.form(String(decoding: body, as: UTF8.self))
                requestObject["postData"] = ["mimeType": mimeType, "params": CredentialRedactor.pairs(clean).map {
                    ["name": $0.name, "value": $0.value]
                }, "text": HARRedaction.redacted] as [String: Any]
            } else {
                requestObject["postData"] = ["mimeType": mimeType, "text": HARRedaction.redacted]
            }
        }
        let mimeType = response.value(forHeaderField: "Content-Type") ?? "x-unknown"
        var content: [String: Any] = ["size": exchange.body.count, "mimeType": mimeType]
        if mimeType.lowercased().contains("json"), let json = try? JSONSerialization.jsonObject(with: exchange.body) {
            content["text"] = JSONText(value: redactor.json(json))
        }
        let location = response.value(forHeaderField: "Location").map { redactor.url($0) } ?? ""
        let timing = HARTimings(response.timings, duration: exchange.duration, relayed: !response.relayHops.isEmpty)
        let t = timing.timings
        return [
            "pageref": "flow",
            "startedDateTime": HARWriter.iso8601(exchange.startedAt),
            "time": timing.time,
            "request": requestObject,
            "response": [
                "status": response.statusCode, "statusText": "", "httpVersion": HARWriter.version(response.httpVersion), "cookies": [],
                "headers": pairs(redactor.headers(response.headerFields)),
                "content": content, "redirectURL": location, "headersSize": -1, "bodySize": exchange.body.count,
            ] as [String: Any],
            "cache": [:] as [String: Any],
            "timings": ["blocked": t.blocked, "dns": t.dns, "connect": t.connect, "ssl": t.ssl, "send": t.send, "wait": t.wait, "receive": t.receive],
            "_relayChain": response.relayHops,
            "_relayChainTimings": response.relayHopTimings.map {
                ["hop": $0.hop, "protocol": $0.protocolName, "tunnelOpen": HARWriter.milliseconds($0.tunnelOpenAfter), "reusedConnection": $0.reusedConnection] as [String: Any]
            },
        ]
    }
}
