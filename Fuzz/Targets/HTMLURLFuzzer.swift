import Foundation
@testable import HTMLDOM
@testable import CSSStyle
@testable import HeadlessPage

/// Parses the input as HTML the way the preload scanner does: libxml2's push parser fed in two
/// chunks, the partial document scanned in between, then the finished document scanned. Every
/// subresource found is an absolute http(s) URL with a host and without a fragment.
@_cdecl("LLVMFuzzerTestOneInput")
public func htmlURLFuzzer(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Data(UnsafeBufferPointer(start: data, count: size))
    let base = URL(string: "https://origin.test/dir/page.html")!
    let parser = HTMLStreamParser(url: base, charset: nil)
    let middle = size / 2
    parser.feed(input.subdata(in: 0..<middle))
    if let partial = parser.partialDocument() { check(SubresourceScanner.references(in: partial, baseURL: base)) }
    parser.feed(input.subdata(in: middle..<size))
    guard let document = parser.finish() else { return 0 }
    check(SubresourceScanner.references(in: document, baseURL: base))
    _ = document.select("div.a img[src] #b")
    _ = document.serialized()
    return 0
}

private func check(_ references: [SubresourceReference]) {
    for reference in references {
        let scheme = reference.url.scheme?.lowercased()
        fuzzCheck(scheme == "http" || scheme == "https", "non-http reference \(reference.url)")
        fuzzCheck(reference.url.fragment == nil, "reference with a fragment \(reference.url)")
        fuzzCheck(reference.url.host != nil, "reference without a host \(reference.url)")
    }
}
