#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import SystemIO

/// A subresource body kept in an unnamed file (O_TMPFILE) instead of memory: the page loader
/// spools a large body it does not parse (an image, a font, media) here as it arrives, so an
/// archive of a heavy page needs memory for the bodies in flight only. The file has no name at
/// any moment (nothing is left on disk, whatever happens to the process) and is freed when the
/// last reference goes. Thread-safe for appends from one writer and reads after it finished.
public final class SpooledBody: Sendable {
    private let descriptor: Int32
    private let written = Atomic<Int>(0)
    /// Bytes written so far.
    public var count: Int { written.load(ordering: .acquiring) }

    /// An unnamed file in `directory`, or nil where the file system has none (the caller keeps
    /// the body in memory then: there is no named fallback).
    init?(in directory: URL) {
        // O_TMPFILE: glibc's macro is a compound Swift does not import (__O_TMPFILE | O_DIRECTORY).
        let unnamedFlag: Int32 = 0o20_000_000 | O_DIRECTORY
        let descriptor = open(directory.path, O_RDWR | O_CLOEXEC | unnamedFlag, 0o600)
        guard descriptor >= 0 else { return nil }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    func append(_ data: Data) throws {
        let count = count
        do {
            try data.withUnsafeBytes { raw in try writeAll(descriptor, raw, at: count) }
        } catch let error as SystemError {
            throw Self.failure("write", error.code)
        }
        written.store(count + data.count, ordering: .releasing)  // the one writer: no lost update
    }

    /// Hands the body to `body` in chunks of at most `chunkSize` bytes, in order.
    public func forEachChunk(chunkSize: Int = 1 << 20, _ body: (Data) throws -> Void) throws {
        let count = count
        var offset = 0
        var buffer = Data(count: chunkSize)
        while offset < count {
            let wanted = min(chunkSize, count - offset)
            let read: Int
            do {
                read = try systemCall("pread") { buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, wanted, off_t(offset)) } }
            } catch {
                throw Self.failure("read", error.code)
            }
            guard read > 0 else { throw Self.failure("read", EIO) }
            try body(buffer.prefix(read))
            offset += read
        }
    }

    private static func failure(_ operation: String, _ code: Int32) -> Error {
        CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "spooled body \(operation) failed: \(String(cString: strerror(code)))"])
    }
}
