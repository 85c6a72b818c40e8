import Foundation
import WebArchive

/// Where crawled pages are written: JSON lines (one record per page) and WARC 1.1 (a request and
/// a response record per page). Files are appended to, so a resumed crawl adds to them; each
/// page is one write() call. Safe to call from several tasks at once.
public final class CrawlOutput: @unchecked Sendable {
    private let lock = NSLock()
    private var jsonLines: FileHandle?
    private var warc: FileHandle?
    private let encoder: JSONEncoder
    /// The WARC file this run writes, when a WARC folder was given.
    public let warcFile: URL?

    /// Opens (creating or appending to) `jsonLinesPath`, and a new WARC file in `warcDirectory`
    /// (created if missing) named for this run; throws a `CrawlError` naming the path.
    public init(jsonLinesPath: String?, warcDirectory: String?) throws {
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        if let jsonLinesPath { jsonLines = try Self.openForAppend(URL(fileURLWithPath: jsonLinesPath)) }
        if let warcDirectory {
            let folder = URL(fileURLWithPath: warcDirectory, isDirectory: true)
            do { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) } catch {
                throw CrawlError.output("cannot create \(warcDirectory): \(error.localizedDescription)")
            }
            let stamp = ISO8601DateFormatter().string(from: Date()).replacingOccurrences(of: ":", with: "")
            let file = folder.appendingPathComponent("relayfetch-crawl-\(stamp)-\(ProcessInfo.processInfo.processIdentifier).warc")
            warc = try Self.openForAppend(file)
            warcFile = file
            warc?.write(WARCWriter.warcinfo())
        } else {
            warcFile = nil
        }
    }

    deinit {
        try? jsonLines?.close()
        try? warc?.close()
    }

    /// Writes one page to every output.
    public func write(_ page: CrawledPage) throws {
        var line: Data?
        if jsonLines != nil {
            line = try encoder.encode(page.record)
            line?.append(0x0A)
        }
        var archived: Data?
        if warc != nil, let status = page.record.status, let url = URL(string: page.record.url) {
            archived = WARCWriter.records(for: WARCExchange(url: url, requestHeaderFields: page.requestHeaderFields, statusCode: status,
                                                            responseHeaderFields: page.responseHeaderFields, body: page.body ?? Data(),
                                                            startedAt: page.record.fetchedAt))
        }
        lock.lock()
        defer { lock.unlock() }
        if let line { jsonLines?.write(line) }
        if let archived { warc?.write(archived) }
    }

    private static func openForAppend(_ file: URL) throws -> FileHandle {
        if !FileManager.default.fileExists(atPath: file.path) {
            guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
                throw CrawlError.output("cannot create \(file.path)")
            }
        }
        do {
            let handle = try FileHandle(forWritingTo: file)
            try handle.seekToEnd()
            return handle
        } catch {
            throw CrawlError.output("cannot write \(file.path): \(error.localizedDescription)")
        }
    }
}
