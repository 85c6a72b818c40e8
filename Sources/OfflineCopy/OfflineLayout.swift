import Foundation

/// The files of one offline copy, planned before any is written: no two URLs get the same file,
/// and no file sits where another needs a folder. A URL that cannot be placed is left out.
struct OfflineLayout {
    private var files: Set<[String]> = []
    private var folders: Set<[String]> = []

    /// Places `wanted` (from `OfflinePath`) for `url`, or a variant of its file name with a hash
    /// of the URL when that is taken; nil when neither fits.
    mutating func place(_ wanted: [String], for url: URL) -> [String]? {
        var candidates = [wanted]
        if let name = wanted.last {
            candidates.append(Array(wanted.dropLast()) + [OfflinePath.safeName(OfflinePath.hash(url.absoluteString) + "_" + name)])
        }
        for candidate in candidates where fits(candidate) {
            files.insert(candidate)
            for length in 1..<candidate.count { folders.insert(Array(candidate[..<length])) }
            return candidate
        }
        return nil
    }

    private func fits(_ path: [String]) -> Bool {
        guard !files.contains(path), !folders.contains(path) else { return false }
        return !(1..<path.count).contains { files.contains(Array(path[..<$0])) }
    }
}
