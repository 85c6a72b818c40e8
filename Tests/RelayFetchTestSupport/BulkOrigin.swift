import Foundation

/// The bulk origin (`Samples/servers/hostile/bulk_origin.py`) for one test: any number of bytes
/// of a known pattern over HTTPS, Range and If-Range, a connection cut on request, and a log of
/// the bytes it actually sent. It listens on an address of its own (127.0.0.70 by default) with
/// a certificate the test CA issues for that address, so relays reach it by IP.
public final class BulkOrigin {
    public let server: HostileServer
    /// The period of the pattern: byte i is `pattern[i % period]`.
    public static let period = 1_000_003
    public static let pattern: [UInt8] = (0..<period).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }

    public init(host: String = "127.0.0.70") throws {
        server = try HostileServer(script: "bulk_origin.py", host: host, arguments: ["--self-issue"])
    }

    /// https://HOST:PORT/bulk/SIZE with `query` (e.g. "drop=1000" or "chunked=1").
    public func url(size: Int, query: String? = nil) -> URL {
        URL(string: "https://\(server.host):\(server.port)/bulk/\(size)" + (query.map { "?\($0)" } ?? ""))!
    }

    /// The Last-Modified the origin sends unless told otherwise (2025-12-01 00:00:00 GMT).
    public static let lastModified = Date(timeIntervalSince1970: 1_764_547_200)

    /// Log lines of `kind` (REQUEST, PROGRESS, SENT), split at tabs; throws when the log is missing.
    public func events(_ kind: String) throws -> [[String]] {
        try server.events().map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }.filter { $0.first == kind }
    }

    /// The most the origin has reported sending for any request so far (PROGRESS and SENT lines).
    public func mostBytesSent() throws -> Int {
        try (events("PROGRESS") + events("SENT")).compactMap { $0.count > 2 ? Int($0[2]) : nil }.max() ?? 0
    }

    /// Checks `bytes` against the pattern from byte `offset` on; returns the offset of the first
    /// byte that differs, or nil when all match.
    public static func firstMismatch(_ bytes: Data, at offset: Int) -> Int? {
        var position = offset % period
        var index = 0
        return bytes.withUnsafeBytes { raw -> Int? in
            pattern.withUnsafeBytes { expected -> Int? in
                while index < raw.count {
                    let run = min(raw.count - index, period - position)
                    if memcmp(raw.baseAddress! + index, expected.baseAddress! + position, run) != 0 {
                        for step in 0..<run where raw[index + step] != expected[position + step] { return offset + index + step }
                    }
                    index += run
                    position = 0
                }
                return nil
            }
        }
    }

    /// The pattern's first `size` bytes (for small expected bodies).
    public static func expected(size: Int, from offset: Int = 0) -> Data {
        var data = Data(capacity: size)
        var position = offset % period
        while data.count < size {
            let run = min(size - data.count, period - position)
            pattern.withUnsafeBufferPointer { data.append($0.baseAddress! + position, count: run) }
            position = 0
        }
        return data
    }
}
