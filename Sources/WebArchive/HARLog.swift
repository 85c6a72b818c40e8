import Foundation

/// A HAR 1.2 file as Codable values (http://www.softwareishard.com/blog/har-12-spec/), with our own
/// `_`-prefixed extensions. Both writers build one and encode it with `JSONEncoder`; keys are
/// sorted so that the same load gives the same bytes.
struct HARLog: Encodable {
    struct Creator: Encodable { var name = "relayfetch"; var version: String }
    struct PageTimings: Encodable { var onContentLoad: Double; var onLoad: Double }
    struct Page: Encodable { var startedDateTime: String; var id: String; var title: String; var pageTimings: PageTimings }
    struct NameValue: Encodable { var name: String; var value: String }
    struct PostData: Encodable { var mimeType: String; var params: [NameValue]?; var text: String }
    struct Request: Encodable {
        var method: String, url: String, httpVersion: String
        var cookies: [NameValue] = []
        var headers: [NameValue], queryString: [NameValue]
        var postData: PostData?
        var headersSize = -1
        var bodySize: Int
    }
    struct Content: Encodable {
        var size: Int, mimeType: String
        var text: String?, encoding: String?
        /// A JSON body kept as a value until every string in it has been redacted (JSON's
        /// escaping would hide a secret holding `"` or `\`); it becomes `text` in `finished`.
        var json: Any?
        enum CodingKeys: String, CodingKey { case size, mimeType, text, encoding }
    }
    struct Response: Encodable {
        var status: Int, statusText = "", httpVersion: String
        var cookies: [NameValue] = []
        var headers: [NameValue], content: Content, redirectURL: String
        var headersSize = -1
        var bodySize: Int
    }
    struct Cache: Encodable {}
    struct Timings: Encodable { var blocked, dns, connect, ssl, send, wait, receive: Double }
    /// `_relayChainTimings`: per hop of a tunnel the exchange opened, when it was open.
    struct HopTiming: Encodable { var hop: String; var `protocol`: String; var tunnelOpen: Double; var reusedConnection: Bool }
    struct Entry: Encodable {
        var pageref: String, startedDateTime: String, time: Double
        var request: Request, response: Response
        var cache = Cache()
        var timings: Timings
        var relayChain: [String], relayChainTimings: [HopTiming]
        var resourceType: String?, error: String?
        enum CodingKeys: String, CodingKey {
            case pageref, startedDateTime, time, request, response, cache, timings
            case relayChain = "_relayChain", relayChainTimings = "_relayChainTimings", resourceType = "_resourceType", error = "_error"
        }
    }
    struct Log: Encodable {
        var version = "1.2"
        var creator: Creator
        var pages: [Page], entries: [Entry]
    }

    var log: Log

    /// The file's bytes: every string passed through `redact` first (JSON bodies become text only
    /// after that), then encoded with sorted keys.
    func encoded(redact: (String) -> String, formatting: JSONEncoder.OutputFormatting) throws -> Data {
        var copy = self
        copy.log.pages = log.pages.map { page in
            var page = page
            page.startedDateTime = redact(page.startedDateTime); page.id = redact(page.id); page.title = redact(page.title)
            return page
        }
        copy.log.entries = log.entries.map { $0.rewritingStrings(redact) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = formatting.union([.sortedKeys])
        return try encoder.encode(copy)
    }
}

extension HARLog.NameValue {
    func rewritingStrings(_ redact: (String) -> String) -> Self { .init(name: redact(name), value: redact(value)) }
}

extension [HARLog.NameValue] {
    func rewritingStrings(_ redact: (String) -> String) -> Self { map { $0.rewritingStrings(redact) } }
}

extension HARLog.Entry {
    func rewritingStrings(_ redact: (String) -> String) -> Self {
        var entry = self
        entry.pageref = redact(pageref); entry.startedDateTime = redact(startedDateTime)
        entry.request.method = redact(request.method); entry.request.url = redact(request.url)
        entry.request.httpVersion = redact(request.httpVersion)
        entry.request.headers = request.headers.rewritingStrings(redact)
        entry.request.queryString = request.queryString.rewritingStrings(redact)
        if let post = request.postData {
            entry.request.postData = .init(mimeType: redact(post.mimeType), params: post.params?.rewritingStrings(redact), text: redact(post.text))
        }
        entry.response.statusText = redact(response.statusText); entry.response.httpVersion = redact(response.httpVersion)
        entry.response.headers = response.headers.rewritingStrings(redact)
        entry.response.redirectURL = redact(response.redirectURL)
        var content = response.content
        content.mimeType = redact(content.mimeType); content.text = content.text.map(redact); content.encoding = content.encoding.map(redact)
        if let json = content.json {
            let data = try? JSONSerialization.data(withJSONObject: HARRedaction.clean(json, redact), options: [.sortedKeys])
            content.text = data.map { String(decoding: $0, as: UTF8.self) } ?? HARRedaction.redacted
            content.json = nil
        }
        entry.response.content = content
        entry.relayChain = relayChain.map(redact)
        entry.relayChainTimings = relayChainTimings.map { .init(hop: $0.hop, protocol: redact($0.protocol), tunnelOpen: $0.tunnelOpen, reusedConnection: $0.reusedConnection) }
        entry.resourceType = resourceType.map(redact); entry.error = error.map(redact)
        return entry
    }
}
