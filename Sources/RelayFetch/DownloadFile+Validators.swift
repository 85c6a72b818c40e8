#if canImport(Glibc)
import HTTPCore
import Glibc
#endif
internal import CLinux
import Foundation

/// What a later resume checks a partial file against (RFC 9110 §13.1.5 If-Range): the strong
/// ETag the file was saved with, kept beside its bytes in a user extended attribute, else the
/// file's time, which `commit` set to the response's Last-Modified. A weak ETag cannot validate
/// a range (it may stand for other bytes, a compressed form say), so it is never kept.
extension DownloadFile {
    /// The extended attribute holding the strong ETag of the response a file was saved from.
    static let entityTagAttribute = "user.relayfetch.etag"

    /// How to ask for the rest of a partial file at `url`: its size, and the Range and If-Range
    /// fields. If-Range is the stored strong ETag when there is one, else the file's time (the
    /// Last-Modified it was saved with): a changed resource comes back whole, not spliced. nil
    /// when there is no file or it is empty.
    public static func resumption(of url: URL) -> (offset: Int, headerFields: HTTPFields)? {
        guard let (size, modified) = existing(url), size > 0 else { return nil }
        let validator = storedEntityTag(of: url) ?? HTTPDate.format(modified)
        return (size, [("Range", "bytes=\(size)-"), ("If-Range", validator)])
    }

    /// Size and modification time of the regular file at `url`, if there is one.
    static func existing(_ url: URL) -> (size: Int, modified: Date)? {
        var info = stat()
        guard stat(url.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let modified = Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
        return (Int(info.st_size), modified)
    }

    /// `text` when it is a strong entity-tag (`"` etagc* `"`, RFC 9110 §8.8.3); nil for a weak
    /// one (`W/"…"`) or anything malformed, which must not reach a header line.
    static func strongEntityTag(_ text: String?) -> String? {
        guard let text = text?.trimmingCharacters(in: .whitespaces), text.utf8.count >= 2, text.utf8.count <= 512,
              text.hasPrefix("\""), text.hasSuffix("\"") else { return nil }
        let inner = text.utf8.dropFirst().dropLast()
        return inner.allSatisfy { $0 == 0x21 || (0x23...0x7E).contains($0) || $0 >= 0x80 } ? text : nil
    }

    /// The strong ETag stored with the file at `url`; nil when there is none, the file system
    /// keeps no user attributes, or what is stored is not a strong entity-tag.
    static func storedEntityTag(of url: URL) -> String? {
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = getxattr(url.path, entityTagAttribute, &buffer, buffer.count)
        guard count > 0 else { return nil }
        return strongEntityTag(String(decoding: buffer.prefix(Int(count)), as: UTF8.self))
    }

    /// Keeps `entityTag` with the file when it is strong, and removes an older one otherwise:
    /// a stale tag would validate bytes it never described. Best effort: where the file system
    /// has no user attributes, resuming falls back to the file's time.
    func recordEntityTag(_ entityTag: String?) {
        if let tag = Self.strongEntityTag(entityTag) {
            _ = tag.withCString { fsetxattr(fd, Self.entityTagAttribute, $0, strlen($0), 0) }
        } else {
            _ = fremovexattr(fd, Self.entityTagAttribute)
        }
    }
}
