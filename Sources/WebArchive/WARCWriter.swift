import Foundation
import HeadlessPage
import RelayFetch
internal import COpenSSL
import CryptoPrimitives

/// Writes a page load as WARC 1.1 (ISO 28500:2017): a warcinfo record, then a request and a
/// response record per exchange, with WARC-Target-URI, WARC-Date and SHA-1 block and payload
/// digests. Bodies are stored decoded, so Content-Encoding is dropped and Content-Length fixed.
public enum WARCWriter {
    public static func data(for page: Page, software: String = "relayfetch/\(RelayFetchVersion.current)") -> Data {
        var output = warcinfo(software: software, date: page.startedAt)
        for resource in [page.main] + page.resources where resource.statusCode != nil {
            output += records(for: resource.exchange)
        }
        return output
    }

    /// Writes `page` as WARC to the file at `url`, record by record: a body spooled by the loader
    /// (`HTTPExchange.Body.spooled`) is read twice in chunks (digests, then the block), so memory
    /// holds one chunk of it, never the whole body.
    public static func write(_ page: Page, to url: URL, software: String = "relayfetch/\(RelayFetchVersion.current)") throws {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: url.path]) }
        let file = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        try file.write(contentsOf: warcinfo(software: software, date: page.startedAt))
        for resource in [page.main] + page.resources where resource.statusCode != nil {
            try writeRecords(for: resource.exchange) { try file.write(contentsOf: $0) }
        }
    }

    /// The warcinfo record that opens a WARC file.
    public static func warcinfo(software: String = "relayfetch/\(RelayFetchVersion.current)", date: Date = Date()) -> Data {
        let fields = "software: \(software)\r\nformat: WARC File Format 1.1\r\nconformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n"
        return record(type: "warcinfo", headers: [("Content-Type", "application/warc-fields")], block: Data(fields.utf8), date: date)
    }

    /// A request record and the response record concurrent to it, for one exchange that got a
    /// response (a spooled body is read in chunks).
    public static func records(for exchange: HTTPExchange) -> Data {
        var output = Data()
        // The sink appends; only reading a spooled body back can fail (the records are then cut short, as a failed write would leave them).
        try? writeRecords(for: exchange) { output += $0 }
        return output
    }

    /// The request and response records of `exchange`, whose kept body is handed over in chunks
    /// twice (digests first, as the record head needs them, then the block), emitted in pieces
    /// to `emit`.
    private static func writeRecords(for exchange: HTTPExchange, emit: (Data) throws -> Void) throws {
        let responseID = recordID()
        let url = exchange.request.url, size = exchange.body.count
        let body = exchange.body.forEachChunk
        try emit(record(type: "request", headers: [("WARC-Target-URI", url.absoluteString), ("WARC-Concurrent-To", responseID),
                                                   ("Content-Type", "application/http;msgtype=request")],
                        block: requestHead(exchange), date: exchange.startedAt))
        let head = responseHead(exchange, payloadSize: size)
        let payloadDigest = Digest(.sha1), blockDigest = Digest(.sha1)
        blockDigest.update(head)
        try body { payloadDigest.update($0); blockDigest.update($0) }
        try emit(recordHead(type: "response", headers: [("WARC-Target-URI", url.absoluteString),
                                                        ("WARC-Payload-Digest", "sha1:" + Self.base32(payloadDigest.finish())),
                                                        ("Content-Type", "application/http;msgtype=response")],
                            blockDigest: "sha1:" + Self.base32(blockDigest.finish()), length: head.count + size, date: exchange.startedAt, id: responseID))
        try emit(head)
        try withoutActuallyEscaping(emit) { try body($0) }
        try emit(Data("\r\n\r\n".utf8))
    }

    private static func record(type: String, headers: [(String, String)], block: Data, date: Date, id: String = recordID()) -> Data {
        recordHead(type: type, headers: headers, blockDigest: digest(block), length: block.count, date: date, id: id)
            + block + Data("\r\n\r\n".utf8)
    }

    private static func recordHead(type: String, headers: [(String, String)], blockDigest: String, length: Int, date: Date, id: String) -> Data {
        var head = "WARC/1.1\r\nWARC-Type: \(type)\r\nWARC-Record-ID: \(id)\r\nWARC-Date: \(warcDate(date))\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "WARC-Block-Digest: \(blockDigest)\r\nContent-Length: \(length)\r\n\r\n"
        return Data(head.utf8)
    }

    private static func requestHead(_ exchange: HTTPExchange) -> Data {
        let url = exchange.request.url
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let target = (components?.percentEncodedPath.isEmpty == false ? components!.percentEncodedPath : "/")
            + (components?.percentEncodedQuery.map { "?\($0)" } ?? "")
        components = nil
        var text = "GET \(target) HTTP/1.1\r\nHost: \(url.host ?? "")\(url.port.map { ":\($0)" } ?? "")\r\n"
        for field in exchange.request.headerFields { text += "\(field.name): \(field.value)\r\n" }
        return Data((text + "\r\n").utf8)
    }

    /// The response head as HTTP/1.1 (how WARC records HTTP, whatever version carried it).
    private static func responseHead(_ exchange: HTTPExchange, payloadSize: Int) -> Data {
        let status = exchange.response.statusCode ?? 0
        var text = "HTTP/1.1 \(status) \(reason(status))\r\n"
        for field in exchange.response.headerFields where !["content-encoding", "content-length", "transfer-encoding"].contains(field.name.lowercased()) {
            text += "\(field.name): \(field.value)\r\n"
        }
        text += "Content-Length: \(payloadSize)\r\n\r\n"
        return Data(text.utf8)
    }

    private static func reason(_ status: Int) -> String {
        [200: "OK", 204: "No Content", 206: "Partial Content", 301: "Moved Permanently", 302: "Found", 303: "See Other",
         304: "Not Modified", 307: "Temporary Redirect", 308: "Permanent Redirect", 400: "Bad Request", 403: "Forbidden",
         404: "Not Found", 500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable"][status] ?? "Status"
    }

    private static func recordID() -> String { "<urn:uuid:\(UUID().uuidString.lowercased())>" }

    private static func warcDate(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    /// "sha1:" + base32 of the SHA-1, as WARC digests are written.
    static func digest(_ data: Data) -> String {
        "sha1:" + base32(Digest.of(data, .sha1))
    }

    static func base32(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var output = ""
        var buffer = 0, bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | Int(byte)
            bits += 8
            while bits >= 5 {
                output.append(alphabet[(buffer >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        if bits > 0 { output.append(alphabet[(buffer << (5 - bits)) & 31]) }
        while output.count % 8 != 0 { output.append("=") }
        return output
    }
}
