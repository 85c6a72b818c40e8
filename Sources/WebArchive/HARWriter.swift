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
        let entries = ([page.main] + page.resources).map {
            HARLog.Entry($0.exchange, pageref: pageID, bodies: .base64, resourceType: $0.kind.rawValue, &redactor)
        }
        let title = page.document.title ?? redactor.url(page.url.absoluteString)
        let log = HARLog(log: .init(creator: .init(version: creatorVersion), pages: [
            .init(startedDateTime: iso8601(page.startedAt), id: pageID, title: title,
                  pageTimings: .init(onContentLoad: -1, onLoad: milliseconds(page.loadTime))),
        ], entries: entries))
        return try log.encoded(redact: redactor.finishing(), formatting: [.prettyPrinted])
    }

    /// Our own field: per hop of a tunnel this exchange opened, when its tunnel was open (ms
    /// after the chain started, inside the entry's `connect`), and whether the relay connection
    /// was reused. Empty when the exchange reused an open origin connection.
    static func relayChainTimings(_ timings: [RelayHopTiming]) -> [HARLog.HopTiming] {
        timings.map { .init(hop: $0.hop, protocol: $0.protocolName, tunnelOpen: milliseconds($0.tunnelOpenAfter),
                            reusedConnection: $0.reusedConnection) }
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
