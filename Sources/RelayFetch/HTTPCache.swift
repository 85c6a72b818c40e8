import HTTPCore
import Foundation
import Locking

/// A private, in-memory HTTP cache (RFC 9111 basics): fresh responses are reused, stale ones
/// revalidated with ETag / Last-Modified. Only successful GETs without credentials are kept;
/// `no-store` and `Vary` (other than Accept-Encoding) are not cached. Never written anywhere.
/// It holds at most `maximumTotalSize` bytes of bodies, dropping the oldest stored first: without
/// a bound, a session that lives long (a crawl's requisites in one store) kept every cacheable
/// response a site sent, up to 8 MiB each, until memory ran out.
final class HTTPCache: Sendable {
    struct Entry {
        let response: HTTPResponse
        let body: Data
        let storedAt: Date
        /// Seconds the response is fresh for; nil when it must be revalidated every time.
        let freshFor: TimeInterval?
        let etag: String?
        let lastModified: String?
    }

    enum Lookup {
        case miss
        case fresh(Entry)
        /// Stale: send these conditional header fields and, on 304, reuse the entry.
        case revalidate(Entry, HTTPFields)
    }

    private let contents = Locked(Contents())
    private let now: @Sendable () -> Date
    private let maximumBodySize: Int
    let maximumTotalSize: Int

    init(maximumBodySize: Int = 8 << 20, maximumTotalSize: Int = 64 << 20, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.maximumBodySize = maximumBodySize
        self.maximumTotalSize = maximumTotalSize
        now = clock
    }

    /// Body bytes held now.
    var totalSize: Int { contents.withLock { $0.size } }

    func lookup(_ request: HTTPRequest) -> Lookup {
        guard Self.isCacheable(request), let entry = contents.withLock({ $0.entries[request.url.absoluteString] }) else { return .miss }
        if let freshFor = entry.freshFor, now().timeIntervalSince(entry.storedAt) < freshFor { return .fresh(entry) }
        var conditions: HTTPFields = []
        if let etag = entry.etag { conditions.append(("If-None-Match", etag)) }
        if let lastModified = entry.lastModified { conditions.append(("If-Modified-Since", lastModified)) }
        return conditions.isEmpty ? .miss : .revalidate(entry, conditions)
    }

    func store(_ request: HTTPRequest, response: HTTPResponse, body: Data) {
        guard Self.isCacheable(request), response.statusCode == 200, body.count <= maximumBodySize else { return }
        let control = Self.directives(response.value(forHeaderField: "Cache-Control"))
        if control.keys.contains("no-store") { return }
        if let vary = response.value(forHeaderField: "Vary"),
           vary.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces).lowercased() != "accept-encoding" }) { return }
        let etag = response.value(forHeaderField: "ETag"), lastModified = response.value(forHeaderField: "Last-Modified")
        var freshFor: TimeInterval?
        if !control.keys.contains("no-cache") {
            if let maxAge = control["max-age"].flatMap({ $0 }).flatMap(TimeInterval.init) {
                freshFor = maxAge
            } else if let expires = response.value(forHeaderField: "Expires").flatMap(HTTPDate.parse) {
                freshFor = expires.timeIntervalSince(now())
            }
        }
        guard freshFor.map({ $0 > 0 }) ?? false || etag != nil || lastModified != nil else { return }
        let entry = Entry(response: response, body: body, storedAt: now(), freshFor: freshFor, etag: etag, lastModified: lastModified)
        contents.withLock { $0.insert(entry, for: request.url.absoluteString, limit: maximumTotalSize) }
    }

    /// After a 304: the stored entry, fresh again, with the new response's header fields merged in.
    func refresh(_ entry: Entry, with notModified: HTTPResponse, for request: HTTPRequest) -> Entry {
        var fields = entry.response.headerFields
        for field in notModified.headerFields where !["content-length", "content-encoding"].contains(field.name.lowercased()) {
            fields.removeAll(named: field.name)
            fields.append(field)
        }
        var response = HTTPResponse(statusCode: entry.response.statusCode, httpVersion: notModified.httpVersion, headerFields: fields,
                                    url: notModified.url, relayHops: notModified.relayHops)
        response.timings = notModified.timings
        let control = Self.directives(response.value(forHeaderField: "Cache-Control"))
        let freshFor = control.keys.contains("no-cache") ? nil : control["max-age"].flatMap({ $0 }).flatMap(TimeInterval.init)
        let refreshed = Entry(response: response, body: entry.body, storedAt: now(), freshFor: freshFor ?? entry.freshFor,
                              etag: response.value(forHeaderField: "ETag") ?? entry.etag,
                              lastModified: response.value(forHeaderField: "Last-Modified") ?? entry.lastModified)
        contents.withLock { $0.insert(refreshed, for: request.url.absoluteString, limit: maximumTotalSize) }
        return refreshed
    }

    /// The entries by URL, and their URLs in the order they were stored (a URL stored again is
    /// queued again; `queued` counts each URL's places, so only its last place evicts it).
    private struct Contents {
        var entries: [String: Entry] = [:]
        var size = 0
        private var order: [String] = []
        private var head = 0
        private var queued: [String: Int] = [:]

        mutating func insert(_ entry: Entry, for key: String, limit: Int) {
            size += entry.body.count - (entries.updateValue(entry, forKey: key)?.body.count ?? 0)
            order.append(key)
            queued[key, default: 0] += 1
            while size > limit, head < order.count {
                let oldest = order[head]
                head += 1
                let places = (queued[oldest] ?? 1) - 1
                queued[oldest] = places > 0 ? places : nil
                if places == 0, let evicted = entries.removeValue(forKey: oldest) { size -= evicted.body.count }
            }
            if head > 64 && head * 2 > order.count {
                order.removeFirst(head)
                head = 0
            }
        }
    }

    /// GETs without credentials or ranges, whose own Cache-Control (or Pragma) does not say no-cache / no-store.
    private static func isCacheable(_ request: HTTPRequest) -> Bool {
        guard request.method.equalsIgnoringASCIICase("GET"), request.body == nil, request.bodyStream == nil else { return false }
        for field in request.headerFields {
            if field.name.equalsIgnoringASCIICase("authorization") || field.name.equalsIgnoringASCIICase("range") { return false }
            if field.name.equalsIgnoringASCIICase("cache-control"), directives(field.value).keys.contains(where: { $0 == "no-cache" || $0 == "no-store" }) {
                return false
            }
            if field.name.equalsIgnoringASCIICase("pragma"), field.value.lowercased().contains("no-cache") { return false }
        }
        return true
    }

    /// Cache-Control directives: name -> argument (nil when it has none).
    static func directives(_ value: String?) -> [String: String?] {
        var result: [String: String?] = [:]
        for part in (value ?? "").split(separator: ",") {
            // Trimmed as Substrings (Foundation's trimming is far slower, and this runs for
            // every request and response).
            let pieces = part.split(separator: "=", maxSplits: 1).map { $0.trimming([" ", "\t"]) }
            guard let name = pieces.first?.lowercased(), !name.isEmpty else { continue }
            result[name] = pieces.count > 1 ? String(pieces[1].trimming(["\""])) : nil
        }
        return result
    }
}

private extension Substring {
    /// Without `characters` at either end.
    func trimming(_ characters: Set<Character>) -> Substring {
        var slice = self
        while let first = slice.first, characters.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, characters.contains(last) { slice = slice.dropLast() }
        return slice
    }
}
