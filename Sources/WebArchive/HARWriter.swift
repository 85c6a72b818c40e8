import Foundation
import HeadlessPage
import RelayFetch

/// Writes a page load as HAR 1.2 (the format Chromium DevTools and haralyzer read), with a
/// `_relayChain` field per entry naming the relay hops that carried it. Unless
/// `includingSensitiveData`, the file can be shared: cookie and authorization header values and
/// credential parameters in URLs (tokens, codes, passwords, ...) are blanked, wherever they
/// appear outside the base64 bodies (`HARRedaction`), as Chromium's DevTools export does.
public enum HARWriter {
    public static func data(for page: Page, includingSensitiveData: Bool = false, creatorVersion: String = RelayFetchVersion.current) throws -> Data {
        let pageID = "page_1"
        var redactor = HARRedaction(enabled: !includingSensitiveData)
        let entries = ([page.main] + page.resources).map { entry($0, pageID: pageID, &redactor) }
        let log: [String: Any] = [
            "log": [
                "version": "1.2",
                "creator": ["name": "relayfetch", "version": creatorVersion],
                "pages": [[
                    "startedDateTime": iso8601(page.startedAt),
                    "id": pageID,
                    "title": page.document.title ?? redactor.url(page.url.absoluteString),
                    "pageTimings": ["onContentLoad": -1, "onLoad": milliseconds(page.loadTime)],
                ] as [String: Any]],
                "entries": entries,
            ] as [String: Any],
        ]
        return try JSONSerialization.data(withJSONObject: redactor.finished(log), options: [.prettyPrinted, .sortedKeys])
    }

    private static func entry(_ resource: PageResource, pageID: String, _ redactor: inout HARRedaction) -> [String: Any] {
        let url = redactor.url(resource.url.absoluteString)
        var content: [String: Any] = ["size": resource.size, "mimeType": resource.mimeType ?? "x-unknown"]
        let timing = HARTimings(resource.timings, duration: resource.duration, relayed: !resource.relayChain.isEmpty)
        // A spooled body is read back whole: HAR holds bodies as base64 text inside one JSON document.
        if let body = (try? resource.wholeBody()) ?? nil { content["text"] = body.base64EncodedString(); content["encoding"] = "base64" }
        var entry: [String: Any] = [
            "pageref": pageID,
            "startedDateTime": iso8601(resource.startedAt),
            "time": timing.time,
            "request": [
                "method": "GET", "url": url, "httpVersion": version(resource.httpVersion ?? "HTTP/1.1"),
                "cookies": [], "headers": redactor.headers(resource.requestHeaderFields),
                "queryString": HARRedaction.queryString(of: url),
                "headersSize": -1, "bodySize": 0,
            ] as [String: Any],
            "response": [
                "status": resource.statusCode ?? 0, "statusText": "", "httpVersion": version(resource.httpVersion ?? ""),
                "cookies": [], "headers": redactor.headers(resource.responseHeaderFields), "content": content,
                "redirectURL": resource.responseHeaderFields.first { $0.name.lowercased() == "location" }.map { redactor.url($0.value) } ?? "",
                "headersSize": -1, "bodySize": resource.size,
            ] as [String: Any],
            "cache": [:] as [String: Any],
            "timings": timing.timings,
            "_relayChain": resource.relayChain,
            "_relayChainTimings": relayChainTimings(resource.relayHopTimings),
            "_resourceType": resource.kind.rawValue,
        ]
        if let error = resource.error { entry["_error"] = error }
        return entry
    }

    /// Our own field: per hop of a tunnel this exchange opened, when its tunnel was open (ms
    /// after the chain started, inside the entry's `connect`), and whether the relay connection
    /// was reused. Empty when the exchange reused an open origin connection.
    static func relayChainTimings(_ timings: [RelayHopTiming]) -> [[String: Any]] {
        timings.map { ["hop": $0.hop, "protocol": $0.protocolName, "tunnelOpen": milliseconds($0.tunnelOpenAfter),
                       "reusedConnection": $0.reusedConnection] }
    }

    /// HAR times are milliseconds; -1 stays -1 ("does not apply").
    static func milliseconds(_ seconds: Double) -> Double {
        seconds < 0 ? -1 : (seconds * 1_000_000).rounded() / 1000
    }

    static func iso8601(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
