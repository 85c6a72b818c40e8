#if canImport(Glibc)
import Glibc
#endif
import Foundation
import RelayFetch
import SystemIO

/// Why a file of an offline copy could not be written; names the path inside the folder.
public struct OfflineCopyError: Error, CustomStringConvertible, Sendable {
    public let path: String
    public let reason: String
    public var description: String { "\(path): \(reason)" }
}

/// The `--save` folder, opened once. Files are created relative to its descriptor, one folder
/// at a time, never following a symbolic link and never writing through an existing entry (it
/// is unlinked and the file created afresh, so a planted link or hard link cannot redirect the
/// bytes), so nothing is written outside it. Its system calls go through `systemCall`.
final class SaveFolder {
    private let descriptor: Int32
    let url: URL

    /// Creates the folder if needed (its own path is the user's: links in it are followed).
    init(_ url: URL) throws {
        self.url = url
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        do {
            descriptor = try systemCall("open") { open(url.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        } catch {
            throw OfflineCopyError(path: url.path, reason: Self.describe(error.code))
        }
    }

    deinit { close(descriptor) }

    /// Writes `data` at `components` (each checked with `OfflinePath.isSafe`) below the folder.
    func write(_ data: Data, at components: [String]) throws(OfflineCopyError) {
        try write(at: components) { emit in try emit(data) }
    }

    /// Writes the chunks `body` hands over, in order, at `components` (as `write(_:at:)`).
    func write(at components: [String], body: ((Data) throws -> Void) throws -> Void) throws(OfflineCopyError) {
        let shown = components.joined(separator: "/")
        guard let name = components.last, components.allSatisfy(OfflinePath.isSafe) else {
            throw OfflineCopyError(path: shown, reason: "not a safe relative path")
        }
        var folder = descriptor
        defer { if folder != descriptor { close(folder) } }
        for (offset, component) in components.dropLast().enumerated() {
            let path = components[...offset].joined(separator: "/")
            do {
                try systemCall("mkdirat") { mkdirat(folder, component, 0o755) }
            } catch where error.code != EEXIST {
                throw OfflineCopyError(path: path, reason: "cannot create folder: \(Self.describe(error.code))")
            } catch {}
            let next: Int32
            do {
                next = try systemCall("openat") { openat(folder, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
            } catch {
                throw OfflineCopyError(path: path, reason: error.code == ELOOP || error.code == ENOTDIR
                                       ? "is a symbolic link or a file, not a folder (not followed)" : Self.describe(error.code))
            }
            if folder != descriptor { close(folder) }
            folder = next
        }
        do {
            try systemCall("unlinkat") { unlinkat(folder, name, 0) }
        } catch where error.code != ENOENT {
            throw OfflineCopyError(path: shown, reason: "cannot replace the existing entry: \(Self.describe(error.code))")
        } catch {}
        let file: Int32
        do {
            file = try systemCall("openat") { openat(folder, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644) }
        } catch {
            throw OfflineCopyError(path: shown, reason: Self.describe(error.code))
        }
        defer { close(file) }
        do {
            try body { data throws(OfflineCopyError) in try Self.write(data, to: file, shown: shown) }
        } catch let error as OfflineCopyError {
            throw error
        } catch {
            throw OfflineCopyError(path: shown, reason: "read failed: \(error.localizedDescription)")
        }
    }

    private static func write(_ data: Data, to file: Int32, shown: String) throws(OfflineCopyError) {
        let failure: Int32? = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < raw.count {
                let count: Int
                do throws(SystemError) {
                    count = try systemCall("write") { Glibc.write(file, raw.baseAddress! + offset, raw.count - offset) }
                } catch {
                    return error.code
                }
                guard count > 0 else { return EIO }
                offset += count
            }
            return nil
        }
        if let failure { throw OfflineCopyError(path: shown, reason: "write failed: \(Self.describe(failure))") }
    }

    private static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }
}
