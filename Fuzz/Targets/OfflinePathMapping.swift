import Foundation
@testable import OfflineCopy

/// The offline-copy path mapper as the offline-path fuzzer sees it. This is the only file that
/// names the mapper's entry point: re-point it here when the mapper changes.
enum OfflinePathMapping {
    /// The path, relative to the copy's folder, where the body of `url` is saved.
    static func localPath(for url: URL, isHTML: Bool) -> String {
        OfflinePath.components(for: url, isHTML: isHTML).joined(separator: "/")
    }
}
