import Foundation
@testable import CSSStyle
@testable import HeadlessPage
@testable import OfflineCopy

/// Scans the input as a style sheet and as a srcset attribute. Every URL found is non-empty and
/// occurs in the input; every resolved one is absolute http(s) without a fragment; rewriting the
/// sheet to local files never traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func cssURLFuzzer(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let css = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let base = URL(string: "https://origin.test/css/site.css")!
    var files: [URL: URL] = [:]
    for reference in CSSURLScanner.references(in: css) {
        fuzzCheck(!reference.url.isEmpty, "an empty URL")
        check(SubresourceURL.resolve(reference.url, against: base)).map {
            files[$0] = URL(fileURLWithPath: "/copy/origin.test/f\(files.count).bin")
        }
    }
    for candidate in SubresourceScanner.srcsetURLs(css) {
        fuzzCheck(!candidate.isEmpty && !candidate.contains(","), "bad srcset candidate \(candidate.debugDescription)")
        _ = check(SubresourceURL.resolve(candidate, against: base))
    }
    guard !files.isEmpty else { return 0 }
    _ = OfflineCopy.rewriteCSS(css, base: base, file: URL(fileURLWithPath: "/copy/origin.test/css/site.css"), files: files)
    return 0
}

private func check(_ url: URL?) -> URL? {
    guard let url else { return nil }
    let scheme = url.scheme?.lowercased()
    fuzzCheck(scheme == "http" || scheme == "https", "non-http URL \(url)")
    fuzzCheck(url.fragment == nil, "URL with a fragment \(url)")
    return url
}
