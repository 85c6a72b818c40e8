import Foundation
import Locking
import WebArchive

/// Where crawled pages are written: JSON lines (one record per page) and WARC 1.1 (a request and
/// a response record per page and per requisite loaded with it, in files that rotate at a size
/// limit). The JSON lines file is appended to, so a resumed crawl adds to it; each run starts new
/// WARC files. Each page is one write per file, undone in every file when any of them fails: a
/// page is in all outputs or in none. After a failure every write throws it again. Safe to call
/// from several tasks at once.
public final class CrawlOutput: Sendable {
    private let encoder: JSONEncoder
    private let writesJSONLines: Bool
    private let warcFolder: URL?
    private let warcLimit: Int
    private let warcPrefix: String
    private let files: Locked<Files>

    /// The open files and where the current WARC file stands, behind one lock.
    private struct Files {
        var jsonLines: OutputFile?
        var warc: OutputFile?
        var warcHasPage = false
        var warcFiles: [URL] = []
        /// The first failure; the outputs take nothing after it.
        var failure: CrawlError?
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
        if let jsonLinesPath { opened.jsonLines = try OutputFile(appendingTo: jsonLinesPath) }
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

    /// Writes one page to every output, or to none and throws a `CrawlError` naming the file
    /// and the cause (no space left on the device...).
    public func write(_ page: CrawledPage) throws {
        var line: Data?
        if writesJSONLines {
            line = try encoder.encode(page.record)
            line?.append(0x0A)
        }
        let archived = warcRecords(for: page)
        try files.withLock { files in
            if let failure = files.failure { throw failure }
            let jsonLinesSize = files.jsonLines?.size ?? 0
            do {
                if let line { try files.jsonLines?.write(line) }
                if let archived { try Self.archive(archived, in: &files, folder: warcFolder, limit: warcLimit, prefix: warcPrefix) }
            } catch {
                files.jsonLines?.truncate(to: jsonLinesSize)
                let failure = error as? CrawlError ?? CrawlError.output("\(error)")
                files.failure = failure
                throw failure
            }
        }
    }

    /// Flushes and closes every file; throws the first failure (data a disk accepted late may
    /// fail only here).
    public func close() throws {
        try files.withLock { files in
            defer { (files.jsonLines, files.warc) = (nil, nil) }
            try files.jsonLines?.close()
            try files.warc?.close()
        }
    }

    /// A page's request and response records and those of its requisites, when it goes to a
    /// WARC file. A page whose body was skipped for its type is in the JSON lines only: its
    /// archive record would claim a payload it never had.
    private func warcRecords(for page: CrawledPage) -> Data? {
        guard warcFolder != nil, page.record.outcome != .skippedByType, let exchange = page.exchange,
              exchange.response.statusCode != nil else { return nil }
        var records = WARCWriter.records(for: exchange)
        for requisite in page.requisites where requisite.response.statusCode != nil {
            records += WARCWriter.records(for: requisite)
        }
        return records
    }

    /// Appends a page's records to the current WARC file, first starting the next file when
    /// they would take this one past the limit (a file holds at least one page, however big).
    private static func archive(_ records: Data, in files: inout Files, folder: URL?, limit: Int, prefix: String) throws {
        if let warc = files.warc, warc.size + records.count > limit && files.warcHasPage, let folder {
            try startWARCFile(&files, in: folder, prefix: prefix)
        }
        guard let warc = files.warc else { return }
        let size = warc.size
        do { try warc.write(records) } catch {
            warc.truncate(to: size)
            throw error
        }
        files.warcHasPage = true
    }

    /// Closes the current WARC file (if any) and starts the next, with its warcinfo record. A
    /// new file whose warcinfo cannot be written is removed: no file is left holding part of one.
    private static func startWARCFile(_ files: inout Files, in folder: URL, prefix: String) throws {
        let previous = files.warc
        files.warc = nil
        try previous?.close()
        let file = folder.appendingPathComponent(prefix + String(format: "-%05d.warc", files.warcFiles.count))
        let warc = try OutputFile(appendingTo: file.path)
        do { try warc.write(WARCWriter.warcinfo()) } catch {
            try? warc.close()
            try? FileManager.default.removeItem(at: file)
            throw error
        }
        files.warc = warc
        files.warcFiles.append(file)
        files.warcHasPage = false
    }
}
