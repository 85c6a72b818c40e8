#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A file a download writes into. A new file is written unnamed (O_TMPFILE) in the target's
/// folder and gets its name only on `commit`, replacing any old file at once (linked to a
/// temporary name, then renamed): a transfer that fails, or a process that dies, leaves no
/// partial file behind. Where the file system has no unnamed files, a temporary name next to
/// the target is used and removed on failure. A resumed download appends to the partial file
/// in place instead. A destination that is not a regular file (/dev/null, a FIFO) is written
/// directly, as curl does: it is never replaced.
public final class DownloadFile {
    /// The file's final name.
    public let destination: URL
    /// Bytes written through this object (not counting what a resumed file held before).
    public private(set) var bytesWritten = 0
    private var fd: Int32
    /// The name the bytes are under until `commit`; nil for an unnamed file or an appended one.
    private var temporaryPath: String?
    private let unnamed: Bool
    /// Written in place: a device or FIFO, or a partial file being resumed.
    private let inPlace: Bool
    private var finished = false

    /// A new, empty file that replaces `destination` on `commit`. A symbolic link is followed:
    /// the file it points to is replaced, the link stays.
    public init(replacing requested: URL) throws {
        let destination = requested.resolvingSymlinksInPath()
        self.destination = destination
        var info = stat()
        if stat(destination.path, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG {
            unnamed = false
            inPlace = true
            fd = open(destination.path, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw Self.error("cannot open \(destination.path)") }
            return
        }
        inPlace = false
        let folder = destination.deletingLastPathComponent().path
        // O_TMPFILE: glibc's macro is a compound Swift does not import (__O_TMPFILE | O_DIRECTORY).
        let unnamedFlag: Int32 = 0o20_000_000 | O_DIRECTORY
        let anonymous = open(folder, O_WRONLY | O_CLOEXEC | unnamedFlag, 0o644)
        if anonymous >= 0 {
            fd = anonymous
            unnamed = true
            return
        }
        unnamed = false
        var template = Array((destination.deletingLastPathComponent().appendingPathComponent(
            "." + destination.lastPathComponent + ".relayfetch-XXXXXX").path).utf8CString)
        fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw Self.error("cannot create a file in \(folder)") }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        fchmod(fd, 0o644)  // mkostemp makes 0600; a download gets the mode an unnamed file would
        temporaryPath = String(decoding: template.prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self)
    }

    /// The partial file at `destination`, opened to append to (a resumed download).
    public init(appendingTo destination: URL) throws {
        self.destination = destination
        unnamed = false
        inPlace = true
        fd = open(destination.path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard fd >= 0 else { throw Self.error("cannot open \(destination.path) to resume it") }
    }

    deinit { if !finished { discard() } }

    /// How to ask for the rest of a partial file at `url`: its size, and the Range and If-Range
    /// fields (the validator is the file's modification time, which `commit` set to the
    /// response's Last-Modified: a changed resource comes back whole, not spliced). nil when
    /// there is no file or it is empty.
    public static func resumption(of url: URL) -> (offset: Int, headerFields: [(name: String, value: String)])? {
        guard let (size, modified) = existing(url), size > 0 else { return nil }
        return (size, [("Range", "bytes=\(size)-"), ("If-Range", HTTPDate.format(modified))])
    }

    /// Size and modification time of the regular file at `url`, if there is one.
    static func existing(_ url: URL) -> (size: Int, modified: Date)? {
        var info = stat()
        guard stat(url.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let modified = Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
        return (Int(info.st_size), modified)
    }

    public func write(_ data: Data) throws {
        if let failure = data.withUnsafeBytes({ Self.writeAll($0, to: fd, path: destination.path) }) { throw failure }
        bytesWritten += data.count
    }

    /// Writes every byte of `bytes` to `fd` (again after EINTR or a short write); the error
    /// naming `path` when the descriptor refuses them (a write of nothing counts as EIO).
    static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32, path: String) -> FetchError? {
        guard let start = bytes.baseAddress else { return nil }
        var offset = 0
        while offset < bytes.count {
            let count = Glibc.write(fd, start + offset, bytes.count - offset)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                if count == 0 { errno = EIO }
                return error("cannot write \(path)")
            }
            offset += count
        }
        return nil
    }

    /// The descriptor a transfer may write into from its own thread: a regular file's or a
    /// device's (/dev/null), whose writes do not wait on a reader; nil for a FIFO or a terminal,
    /// whose writes can block (a full pipe, a paused tty) and would hold up the session's
    /// other transfers on that thread.
    var directDescriptor: Int32? {
        guard !finished else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        let kind = info.st_mode & S_IFMT
        return kind == S_IFREG || (kind == S_IFCHR && isatty(fd) == 0) ? fd : nil
    }

    /// Counts bytes a transfer wrote into the descriptor itself.
    func recordWritten(_ count: Int) { bytesWritten += count }

    /// Gives the file its name (replacing what was there) and sets its modification time.
    public func commit(modificationDate: Date? = nil) throws {
        guard !finished else { return }
        if let modificationDate, isRegularFile() {
            let seconds = modificationDate.timeIntervalSince1970.rounded(.down)
            var times = [timespec(tv_sec: Int(seconds), tv_nsec: 0), timespec(tv_sec: Int(seconds), tv_nsec: 0)]
            _ = futimens(fd, &times)
        }
        if unnamed {
            // A name for the unnamed file, next to the target, then the atomic rename over it.
            let name = destination.deletingLastPathComponent().appendingPathComponent(
                ".\(destination.lastPathComponent).relayfetch-\(UInt32.random(in: 0...UInt32.max))").path
            guard linkat(AT_FDCWD, "/proc/self/fd/\(fd)", AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0 else {
                throw Self.error("cannot create \(destination.path)")
            }
            temporaryPath = name
        }
        if let temporaryPath {
            guard rename(temporaryPath, destination.path) == 0 else {
                let failure = Self.error("cannot create \(destination.path)")
                unlink(temporaryPath)
                throw failure
            }
            self.temporaryPath = nil
        }
        finished = true
        close(fd)
    }

    private func isRegularFile() -> Bool {
        var info = stat()
        return fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// Drops what was written: an unnamed file vanishes, a temporary name is removed, an
    /// appended file keeps what it has (that is what a later resume continues from).
    public func discard() {
        guard !finished else { return }
        finished = true
        if let temporaryPath { unlink(temporaryPath) }
        close(fd)
    }

    private static func error(_ what: String) -> FetchError {
        FetchError(.transfer("\(what): \(String(cString: strerror(errno)))"))
    }
}
