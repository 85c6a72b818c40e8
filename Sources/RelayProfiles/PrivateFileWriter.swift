#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SystemIO

/// A failed step of writing a private file: the step, the path and the cause.
struct PrivateFileError: Error, CustomStringConvertible {
    let step: String
    let path: String
    let reason: String

    init(step: String, path: String, code: Int32) {
        self.init(step: step, path: path, reason: String(cString: strerror(code)))
    }

    init(step: String, path: String, reason: String) {
        self.step = step
        self.path = path
        self.reason = reason
    }

    var description: String { "cannot \(step) \(path): \(reason)" }
}

/// Writes files only their owner may read, with no moment at which they are wider: the
/// directory is made 0700, the data goes to a temporary name opened `O_CREAT|O_EXCL` with mode
/// 0600 (the umask can only narrow it), is synced, then renamed over the target.
enum PrivateFileWriter {
    static func write(_ data: Data, to url: URL) throws(PrivateFileError) {
        let directory = url.deletingLastPathComponent()
        try makePrivateDirectory(directory)
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString.prefix(8))").path
        let fd = try call("create", temporary) { open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        do {
            try writeAll(data, to: fd, path: temporary)
            try call("sync", temporary) { fsync(fd) }
            try call("close", temporary) { close(fd) }
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        do {
            try call("rename", url.path) { rename(temporary, url.path) }
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// Creates `directory` 0700 (missing parents too, as XDG asks) and makes it 0700 if it
    /// existed; parents that exist are left as they are.
    private static func makePrivateDirectory(_ directory: URL) throws(PrivateFileError) {
        let parent = directory.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw PrivateFileError(step: "create the directory", path: parent.path, reason: error.localizedDescription)
        }
        let path = directory.path
        do {
            try systemCall("mkdir") { mkdir(path, 0o700) }
            return
        } catch where error.code != EEXIST {
            throw PrivateFileError(step: "create the directory", path: path, code: error.code)
        } catch {}
        try call("restrict the directory", path) { chmod(path, 0o700) }
    }

    private static func writeAll(_ data: Data, to fd: Int32, path: String) throws(PrivateFileError) {
        var offset = 0
        while offset < data.count {
            offset += try call("write", path) {
                data.withUnsafeBytes { bytes in Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset) }
            }
        }
    }

    /// Runs `body` through `systemCall` (EINTR retried); a failure becomes a `PrivateFileError`
    /// naming `step` and `path`.
    @discardableResult
    private static func call<T: BinaryInteger>(_ step: String, _ path: String, _ body: () -> T) throws(PrivateFileError) -> T {
        do {
            return try systemCall(step, body)
        } catch {
            throw PrivateFileError(step: step, path: path, code: error.code)
        }
    }
}
