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
/// from a search made in the file's text.
public enum ExchangeHARWriter {
    /// Header fields whose values are always redacted.
    static let sensitiveHeaders: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie"]
    /// Header fields that hold URLs: their queries are redacted.
    static let urlHeaders: Set<String> = ["location", "referer", "content-location"]
    /// Parameter and JSON member names whose values are always redacted.
    static let sensitiveNames: Set<String> = [
        "code", "access_token", "id_token", "refresh_token", "token", "client_secret", "password", "code_verifier",
        "device_code", "user_code", "client_assertion", "csrfmiddlewaretoken", "nonce", "state",
    ]
    static let redacted = CredentialRedactor.redacted

    public static func data(for exchanges: [RecordedExchange], title: String, redacting secrets: [String],
                            creatorVersion: String = RelayFetchVersion.current) throws -> Data {
        let started = exchanges.first?.startedAt ?? Date()
        var redactor = CredentialRedactor(sensitiveNames: sensitiveNames)
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
        let known = SecretRedactor(secrets: secrets + redactor.scrubbable)
        return try JSONSerialization.data(withJSONObject: clean(log, known), options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }

    /// A JSON response body kept as a value until every string in it has been redacted.
    private struct JSONBody { let value: Any }

    /// `value` with `secrets` blanked in every string (dictionary keys too); a `JSONBody` becomes
    /// its JSON text only after that.
    private static func clean(_ value: Any, _ secrets: SecretRedactor) -> Any {
        switch value {
        case let text as String:
            return secrets.redact(text)
        case let body as JSONBody:
            let data = try? JSONSerialization.data(withJSONObject: clean(body.value, secrets), options: [.sortedKeys])
            return data.map { String(decoding: $0, as: UTF8.self) } ?? redacted
        case let object as [String: Any]:
            return Dictionary(object.map { (secrets.redact($0.key), clean($0.value, secrets)) }) { first, _ in first }
        case let array as [Any]:
            return array.map { clean($0, secrets) }
        default:
            return value
        }
    }

    private static func entry(_ exchange: RecordedExchange, _ redactor: inout CredentialRedactor) -> [String: Any] {
        let request = exchange.request
        let response = exchange.response
        let url = redactor.url(request.url.absoluteString)
        var requestObject: [String: Any] = [
            "method": request.method, "url": url, "httpVersion": response.httpVersion,
            "cookies": [], "headers": headers(request.headerFields, &redactor), "headersSize": -1, "bodySize": request.body?.count ?? 0,
            "queryString": CredentialRedactor.pairs(URLComponents(string: url)?.percentEncodedQuery ?? "").map { ["name": $0.name, "value": $0.value] },
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
            content["text"] = JSONBody(value: redactor.json(json))
        }
        let location = response.value(forHeaderField: "Location").map { redactor.url($0) } ?? ""
        let timing = HARTimings(response.timings, duration: exchange.duration, relayed: !response.relayHops.isEmpty)
        return [
            "pageref": "flow",
            "startedDateTime": HARWriter.iso8601(exchange.startedAt),
            "time": timing.time,
            "request": requestObject,
            "response": [
                "status": response.statusCode, "statusText": "", "httpVersion": response.httpVersion, "cookies": [],
                "headers": headers(response.headerFields, &redactor),
                "content": content, "redirectURL": location, "headersSize": -1, "bodySize": exchange.body.count,
            ] as [String: Any],
            "cache": [:] as [String: Any],
            "timings": timing.timings,
            "_relayChain": response.relayHops,
            "_relayChainTimings": HARWriter.relayChainTimings(response.relayHopTimings),
        ]
    }

    private static func headers(_ fields: [(name: String, value: String)], _ redactor: inout CredentialRedactor) -> [[String: String]] {
        fields.map { field in
            let name = field.name.lowercased()
            let value = sensitiveHeaders.contains(name) ? redacted : urlHeaders.contains(name) ? redactor.url(field.value) : field.value
            return ["name": field.name, "value": value]
        }
    }
}
