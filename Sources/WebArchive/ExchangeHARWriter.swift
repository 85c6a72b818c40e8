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
    public static func data(for exchanges: [HTTPExchange], title: String, redacting secrets: [String],
                            includingSensitiveData: Bool = false, creatorVersion: String = RelayFetchVersion.current) throws -> Data {
        let started = exchanges.first?.startedAt ?? Date()
        var redactor = HARRedaction(enabled: !includingSensitiveData)
        let entries = exchanges.map { HARLog.Entry($0, pageref: "flow", bodies: .redactedJSON, &redactor) }
        let log = HARLog(log: .init(creator: .init(version: creatorVersion), pages: [
            .init(startedDateTime: HARWriter.iso8601(started), id: "flow", title: title, pageTimings: .init(onContentLoad: -1, onLoad: -1)),
        ], entries: entries))
        return try log.encoded(redact: redactor.finishing(secrets: secrets), formatting: [.prettyPrinted, .withoutEscapingSlashes])
    }
}
