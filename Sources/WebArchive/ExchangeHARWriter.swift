import Foundation
import HeadlessPage
import RelayFetch

/// Writes recorded exchanges (an OAuth flow's) as HAR 1.2, with credentials redacted so the file
/// can be shared: Authorization, Cookie and Set-Cookie values; codes, tokens, passwords, client
/// secrets and assertions in queries, Location headers, form bodies and JSON bodies; and any
/// string in `secrets` wherever it appears. Bodies other than JSON are left out (size only).
public enum ExchangeHARWriter {
    /// Header fields whose values are always redacted.
    static let sensitiveHeaders: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie"]
    /// Parameter and JSON member names whose values are always redacted.
    static let sensitiveNames: Set<String> = [
        "code", "access_token", "id_token", "refresh_token", "token", "client_secret", "password", "code_verifier",
        "device_code", "user_code", "client_assertion", "csrfmiddlewaretoken", "nonce", "state",
    ]
    static let redacted = "[redacted]"

    public static func data(for exchanges: [RecordedExchange], title: String, redacting secrets: [String],
                            creatorVersion: String = RelayFetchVersion.current) throws -> Data {
        let started = exchanges.first?.startedAt ?? Date()
        let log: [String: Any] = [
            "log": [
                "version": "1.2",
                "creator": ["name": "relayfetch", "version": creatorVersion],
                "pages": [["startedDateTime": HARWriter.iso8601(started), "id": "flow", "title": title,
                           "pageTimings": ["onContentLoad": -1, "onLoad": -1]] as [String: Any]],
                "entries": exchanges.map(entry),
            ] as [String: Any],
        ]
        let data = try JSONSerialization.data(withJSONObject: log, options: [.prettyPrinted, .sortedKeys])
        let text = secrets.filter { !$0.isEmpty }.reduce(String(decoding: data, as: UTF8.self)) {
            $0.replacingOccurrences(of: $1, with: redacted)
        }
        return Data(text.utf8)
    }

    private static func entry(_ exchange: RecordedExchange) -> [String: Any] {
        let request = exchange.request
        let response = exchange.response
        var requestObject: [String: Any] = [
            "method": request.method, "url": redact(url: request.url.absoluteString), "httpVersion": response.httpVersion,
            "cookies": [], "headers": headers(request.headerFields), "headersSize": -1, "bodySize": request.body?.count ?? 0,
            "queryString": (URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? [])
                .map { ["name": $0.name, "value": sensitiveNames.contains($0.name) ? redacted : ($0.value ?? "")] },
        ]
        if let body = request.body {
            let mimeType = request.headerFields.first { $0.name.lowercased() == "content-type" }?.value ?? "application/octet-stream"
            if mimeType.hasPrefix(FormEncoding.urlEncoded.rawValue) {
                let items = URLComponents(string: "?" + String(decoding: body, as: UTF8.self).replacingOccurrences(of: "+", with: "%20"))?.queryItems ?? []
                requestObject["postData"] = ["mimeType": mimeType, "params": items.map {
                    ["name": $0.name, "value": sensitiveNames.contains($0.name) ? redacted : ($0.value ?? "")]
                }, "text": redacted] as [String: Any]
            } else {
                requestObject["postData"] = ["mimeType": mimeType, "text": redacted]
            }
        }
        let mimeType = response.value(forHeaderField: "Content-Type") ?? "x-unknown"
        var content: [String: Any] = ["size": exchange.body.count, "mimeType": mimeType]
        if mimeType.lowercased().contains("json"), let json = try? JSONSerialization.jsonObject(with: exchange.body),
           let clean = try? JSONSerialization.data(withJSONObject: redact(json: json), options: [.sortedKeys]) {
            content["text"] = String(decoding: clean, as: UTF8.self)
        }
        let location = response.value(forHeaderField: "Location").map(redact(url:)) ?? ""
        return [
            "pageref": "flow",
            "startedDateTime": HARWriter.iso8601(exchange.startedAt),
            "time": HARWriter.milliseconds(exchange.duration),
            "request": requestObject,
            "response": [
                "status": response.statusCode, "statusText": "", "httpVersion": response.httpVersion, "cookies": [],
                "headers": headers(response.headerFields).map { $0["name"]?.lowercased() == "location" ? ["name": $0["name"]!, "value": location] : $0 },
                "content": content, "redirectURL": location, "headersSize": -1, "bodySize": exchange.body.count,
            ] as [String: Any],
            "cache": [:] as [String: Any],
            "timings": HARWriter.harTimings(response.timings),
            "_relayChain": response.relayHops,
        ]
    }

    private static func headers(_ fields: [(name: String, value: String)]) -> [[String: String]] {
        fields.map { ["name": $0.name, "value": sensitiveHeaders.contains($0.name.lowercased()) ? redacted : $0.value] }
    }

    /// The URL with sensitive query parameters' values redacted (relative URLs too).
    static func redact(url text: String) -> String {
        guard var components = URLComponents(string: text), let items = components.queryItems, !items.isEmpty else { return text }
        components.queryItems = items.map { sensitiveNames.contains($0.name) ? URLQueryItem(name: $0.name, value: redacted) : $0 }
        return components.string ?? text
    }

    private static func redact(json: Any) -> Any {
        if let object = json as? [String: Any] {
            return object.reduce(into: [String: Any]()) { $0[$1.key] = sensitiveNames.contains($1.key) ? redacted : redact(json: $1.value) }
        }
        if let array = json as? [Any] { return array.map(redact(json:)) }
        return json
    }

}
