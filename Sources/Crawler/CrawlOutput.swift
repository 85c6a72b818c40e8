import Foundation
import Locking
import WebArchive

/// Where crawled pages are written: JSON lines (one record per page) and WARC 1.1 (a request and
/// a response record per page and per requisite loaded with it, in files that rotate at a size limit). The JSON lines file is
/// appended to, so a resumed crawl adds to it; each run starts new WARC files. Each page is one
/// write() call per file. Safe to call from several tasks at once.
public final class CrawlOutput: Sendable {
    private let encoder: JSONEncoder
    private let writesJSONLines: Bool
    private let warcFolder: URL?
    private let warcLimit: Int
    private let warcPrefix: String
    private let files: Locked<Files>

    /// The open files and where the current WARC file stands, behind one lock.
    private struct Files {
        var jsonLines: FileHandle?
        var warc: FileHandle?
        var warcSize = 0
        var warcHasPage = false
        var warcFiles: [URL] = []
    }

    /// The WARC files this run wrote, in order.
    public var warcFiles: [URL] { files.withLock { $0.warcFiles } }

    /// Opens (creating or appending to) `jsonLinesPath`, and the first WARC file in
    /// `warcDirectory` (created if missing), named for this run; a new one follows when a page
    /// would take a file past `warcMaximumSize` bytes. Throws a `CrawlError` naming the path.
    public init(jsonLinesPath: String?, warcDirectory: String?, warcMaximumSize: Int = 1 << 30) throws {
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        warcLimit = warcMaximumSize
        let stamp = ISO8601DateFormatter().string(from: Date()).replacingOccurrences(of: ":", with: "")
        warcPrefix = "relayfetch-crawl-\(stamp)-\(ProcessInfo.processInfo.processIdentifier)"
        var opened = Files()
        if let jsonLinesPath { opened.jsonLines = try Self.openForAppend(URL(fileURLWithPath: jsonLinesPath)) }
        writesJSONLines = opened.jsonLines != nil
        if let warcDirectory {
            let folder = URL(fileURLWithPath: warcDirectory, isDirectory: true)
            do { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) } catch {
                throw CrawlError.output("cannot create \(warcDirectory): \(error.localizedDescription)")
            }
            warcFolder = folder
            try Self.startWARCFile(&opened, in: folder, prefix: warcPrefix)
        } else {
            warcFolder = nil
        }
        files = Locked(opened)
    }

    deinit {
        files.withLock { files in
            try? files.jsonLines?.close()
            try? files.warc?.close()
        }
    }

    /// Writes one page to every output.
    public func write(_ page: CrawledPage) throws {
        var line: Data?
        if writesJSONLines {
            line = try encoder.encode(page.record)
            line?.append(0x0A)
        }
        var archived: Data?
        // A page whose body was skipped for its type is in the JSON lines only: its archive
        // record would claim a payload it never had.
        if warcFolder != nil, page.record.outcome != .skippedByType, let status = page.record.status, let url = URL(string: page.record.url) {
            var records = WARCWriter.records(for: WARCExchange(url: url, requestHeaderFields: page.requestHeaderFields, statusCode: status,
                                                               responseHeaderFields: page.responseHeaderFields, body: page.body ?? Data(),
                                                               startedAt: page.record.fetchedAt))
            for requisite in page.requisites {
                guard let status = requisite.statusCode else { continue }
                records += WARCWriter.records(for: WARCExchange(url: requisite.url, requestHeaderFields: requisite.requestHeaderFields,
                                                                statusCode: status, responseHeaderFields: requisite.responseHeaderFields,
                                                                body: requisite.body ?? Data(), startedAt: requisite.startedAt))
            }
            archived = records
        }
        try files.withLock { files in
            if let line { files.jsonLines?.write(line) }
            guard let archived else { return }
            // A file holds at least one page, however big; the next page that would overflow it starts a new one.
            if files.warcSize + archived.count > warcLimit && files.warcHasPage, let warcFolder {
                try Self.startWARCFile(&files, in: warcFolder, prefix: warcPrefix)
            }
            files.warc?.write(archived)
            files.warcSize += archived.count
            files.warcHasPage = true
        }
    }

    /// Closes the current WARC file (if any) and starts the next, with its warcinfo record.
    private static func startWARCFile(_ files: inout Files, in folder: URL, prefix: String) throws {
        try? files.warc?.close()
        let file = folder.appendingPathComponent(prefix + String(format: "-%05d.warc", files.warcFiles.count))
        files.warc = try openForAppend(file)
        files.warcFiles.append(file)
        let info = WARCWriter.warcinfo()
        files.warc?.write(info)
        files.warcSize = info.count
        files.warcHasPage = false
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
