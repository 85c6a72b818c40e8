#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SystemIO

/// A file a download writes into. A new file is written unnamed (O_TMPFILE) in the target's
/// folder and gets its name only on `commit`, replacing any old file at once (linked to a
/// temporary name, then renamed): a transfer that fails, or a process that dies, leaves no
/// partial file behind. Where the file system has no unnamed files, a temporary name next to
/// the target is used and removed on failure. Either is created 0666 less the umask, takes the
/// permission bits of the file it replaces, and is renamed into place only once fsync() and
/// close() succeeded. A resumed download appends to the partial file
/// in place instead. A destination that is not a regular file (/dev/null, a FIFO) is written
/// directly, as curl does: it is never replaced.
public final class DownloadFile {
    /// The file's final name.
    public let destination: URL
    /// Bytes written through this object (not counting what a resumed file held before).
    public private(set) var bytesWritten = 0
    private(set) var fd: Int32
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
        // 0666: the kernel applies the umask, as to any file a program creates (curl's too).
        let unnamedFlag: Int32 = 0o20_000_000 | O_DIRECTORY
        let anonymous = open(folder, O_WRONLY | O_CLOEXEC | unnamedFlag, 0o666)
        if anonymous >= 0 {
            fd = anonymous
            unnamed = true
            return
        }
        unnamed = false
        (fd, temporaryPath) = try Self.createTemporaryFile(beside: destination)
    }

    /// A new file under a hidden random name next to `destination`, created with 0666 so the
    /// kernel applies the umask as it does to the unnamed file (mkstemp's fixed 0600, widened
    /// by hand, ignored it).
    private static func createTemporaryFile(beside destination: URL) throws -> (Int32, String) {
        let folder = destination.deletingLastPathComponent()
        for _ in 0..<100 {
            let path = folder.appendingPathComponent(".\(destination.lastPathComponent).relayfetch-\(UInt64.random(in: 0...UInt64.max))").path
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            if fd >= 0 { return (fd, path) }
            guard errno == EEXIST else { break }
        }
        throw error("cannot create a file in \(folder.path)")
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

    public func write(_ data: Data) throws {
        if let failure = data.withUnsafeBytes({ Self.writeAll($0, to: fd, path: destination.path) }) { throw failure }
        bytesWritten += data.count
    }

    /// Writes every byte of `bytes` to `fd` (again after EINTR or a short write); the error
    /// naming `path` when the descriptor refuses them (a write of nothing counts as EIO).
    static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32, path: String) -> FetchError? {
        do {
            try SystemIO.writeAll(fd, bytes)
            return nil
        } catch {
            errno = error.code
            return self.error("cannot write \(path)")
        }
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

    /// Gives the file its name (replacing what was there, whose permission bits it takes), sets
    /// its modification time and keeps a strong `entityTag` with it (see `resumption(of:)`).
    /// The bytes must reach the disk first: when fsync() or close() fails, the file is dropped
    /// and the old one stays; throws naming the destination.
    public func commit(modificationDate: Date? = nil, entityTag: String? = nil) throws {
        guard !finished else { return }
        finished = true
        do {
            try settle(modificationDate: modificationDate, entityTag: entityTag)
        } catch {
            if let temporaryPath { unlink(temporaryPath) }
            throw error
        }
        if let temporaryPath {
            guard rename(temporaryPath, destination.path) == 0 else {
                let failure = Self.error("cannot create \(destination.path)")
                unlink(temporaryPath)
                throw failure
            }
            self.temporaryPath = nil
        }
    }

    /// Everything before the rename: the file's time, validator and mode, its bytes on disk,
    /// a name for an unnamed file, and the descriptor closed (whatever fails).
    private func settle(modificationDate: Date?, entityTag: String?) throws {
        let regular = isRegularFile()
        var failure: FetchError?
        if regular {
            if let modificationDate {
                let seconds = modificationDate.timeIntervalSince1970.rounded(.down)
                var times = [timespec(tv_sec: Int(seconds), tv_nsec: 0), timespec(tv_sec: Int(seconds), tv_nsec: 0)]
                _ = futimens(fd, &times)
            }
            recordEntityTag(entityTag)
            if !inPlace { takeModeOfReplacedFile() }
            if fsync(fd) != 0 { failure = Self.error("cannot write \(destination.path)") }
        }
        if failure == nil, unnamed {
            // A name for the unnamed file, next to the target, then the atomic rename over it.
            let name = destination.deletingLastPathComponent().appendingPathComponent(
                ".\(destination.lastPathComponent).relayfetch-\(UInt64.random(in: 0...UInt64.max))").path
            if linkat(AT_FDCWD, "/proc/self/fd/\(fd)", AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0 {
                temporaryPath = name
            } else {
                failure = Self.error("cannot create \(destination.path)")
            }
        }
        // Linux frees the descriptor even when close() fails (EINTR included): never retried.
        if close(fd) != 0, failure == nil, errno != EINTR { failure = Self.error("cannot write \(destination.path)") }
        if let failure { throw failure }
    }

    /// A replaced file's permission bits carry over (a private 0600 download stays private);
    /// set-id bits do not. A new file keeps what the umask gave it.
    private func takeModeOfReplacedFile() {
        var info = stat()
        guard stat(destination.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return }
        fchmod(fd, info.st_mode & 0o1777)
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

    static func error(_ what: String) -> FetchError {
        FetchError(.transfer("\(what): \(String(cString: strerror(errno)))"))
    }
}
