import Foundation
@testable import CSSStyle
@testable import OfflineCopy

/// Maps URLs made from the input (as written, and as a page reference resolved the way the
/// scanner resolves them) to offline-copy paths. The property that matters: the path stays inside
/// the copy's folder, so it is relative, has no `..` component and no NUL.
@_cdecl("LLVMFuzzerTestOneInput")
public func offlinePathFuzzer(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let flags = bytes.first else { return 0 }
    let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
    let base = URL(string: "https://origin.test/dir/page.html")!
    for url in [URL(string: text), SubresourceURL.resolve(text, against: base)].compactMap({ $0 }) {
        let path = OfflinePathMapping.localPath(for: url, isHTML: flags & 1 == 1)
        fuzzCheck(!path.isEmpty, "empty path for \(url.absoluteString.debugDescription)")
        fuzzCheck(!path.hasPrefix("/"), "absolute path \(path.debugDescription) for \(url.absoluteString.debugDescription)")
        fuzzCheck(!path.contains("\0"), "NUL in \(path.debugDescription) for \(url.absoluteString.debugDescription)")
        fuzzCheck(!path.split(separator: "/").contains(".."),
                     "\"..\" in \(path.debugDescription) for \(url.absoluteString.debugDescription)")
    }
    return 0
}
