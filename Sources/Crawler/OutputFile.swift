#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SystemIO

/// One file a crawl appends to, written with plain system calls so that every failure (a full
/// disk, a device that refuses data) is a thrown `CrawlError` naming the file and the cause,
/// never a trap. A write that fails part-way can be undone (`truncate(to:)`): the file is cut
/// back to whole records, and a resumed crawl appends after them. The only code of the crawler
/// that reads `errno`.
final class OutputFile {
    let path: String
    private var descriptor: Int32
    /// Bytes in the file: where the next write lands.
    private(set) var size: Int

    /// Opens `path` for appending, creating it (mode 0666 less the umask) if missing.
    init(appendingTo path: String) throws {
        self.path = path
        descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { throw Self.failure("cannot open", path, errno) }
        let end = lseek(descriptor, 0, SEEK_END)
        // A device (/dev/full) has no end to seek to; it starts at 0 like an empty file.
        size = max(0, Int(end))
    }

    deinit {
        if descriptor >= 0 { Glibc.close(descriptor) }
    }

    /// Appends all of `data`, or throws with the file as it was plus what got through (undo
    /// that with `truncate(to:)`).
    func write(_ data: Data) throws {
        guard !data.isEmpty else { return }
        do {
            try data.withUnsafeBytes { buffer in try writeAll(descriptor, buffer) }
        } catch let error as SystemError {
            throw Self.failure("cannot write", path, error.code)
        }
        size += data.count
    }

    /// Cuts the file back to `length` bytes (the size before a failed write). Best effort: the
    /// write's own error is the one worth reporting, and a device cannot be cut.
    func truncate(to length: Int) {
        guard descriptor >= 0, ftruncate(descriptor, off_t(length)) == 0 else { return }
        size = length
    }

    /// Flushes the file to its storage and closes it; throws when either fails (data a disk
    /// took late may fail only here). Devices and pipes, which cannot be flushed, just close.
    func close() throws {
        guard descriptor >= 0 else { return }
        let flushed = fsync(descriptor) == 0 ? 0 : errno
        let closed = Glibc.close(descriptor) == 0 ? 0 : errno
        descriptor = -1
        if flushed != 0 && flushed != EINVAL && flushed != EROFS { throw Self.failure("cannot write", path, flushed) }
        if closed != 0 && closed != EINTR { throw Self.failure("cannot close", path, closed) }
    }

    private static func failure(_ what: String, _ path: String, _ code: Int32) -> CrawlError {
        CrawlError.output("\(what) \(path): \(String(cString: strerror(code)))")
    }
}
