#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SystemIO

/// An exclusive `flock` on an SQLite store's file, held from before SQLite opens it until after
/// SQLite closes it (its owner, `SQLiteDatabase`, releases it last): one process per store file.
/// The kernel drops it when the process ends, however it ends (kill -9 included), so a crashed
/// crawl never leaves the store locked. A second process (or a second store in this one: the
/// lock belongs to the open file) is refused at once rather than left waiting.
/// flock, not fcntl: SQLite's own locks on the file are fcntl locks, which are independent of
/// flock on Linux, and which closing any descriptor of the file would drop (this one never
/// closes before SQLite's).
final class StoreFileLock {
    private let descriptor: Int32

    /// Opens `path` (creating it, empty, mode 0644 less the umask, as SQLite would) and locks it;
    /// throws a `CrawlError` naming the file when it cannot, or when another holder has it.
    init(path: String) throws {
        descriptor = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw CrawlError.store("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        do {
            try systemCall("flock") { flock(descriptor, LOCK_EX | LOCK_NB) }
        } catch {
            Glibc.close(descriptor)
            if error.wouldBlock {
                throw CrawlError.store("\(path) is in use by another relayfetch process (one process per SQLite store: wait for "
                                       + "it to end, or share a crawl between workers with a PostgreSQL store)")
            }
            throw CrawlError.store("cannot lock \(path): \(String(cString: strerror(error.code)))")
        }
    }

    deinit { Glibc.close(descriptor) }
}
