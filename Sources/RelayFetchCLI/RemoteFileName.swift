import Foundation

/// The file name `-O` takes from a URL, by curl 8's rule: the last segment of the path, as it
/// is in the URL (no percent-decoding, so "%2F" stays three characters and no segment can name
/// another folder), without the query. A URL whose path ends in "/" (or has none) has no name,
/// and neither has a "." or ".." segment: curl refuses those ("Remote file name has no length").
enum RemoteFileName {
    static func name(for url: URL) throws -> String {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? ""
        let last = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? ""
        guard !last.isEmpty, last != ".", last != ".." else {
            throw UsageError("-O: \(url.absoluteString) has no file name at the end of its path: give -o FILE for it")
        }
        return last
    }
}
