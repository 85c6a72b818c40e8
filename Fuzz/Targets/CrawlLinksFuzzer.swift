import Foundation
@testable import Crawler

/// The input as a page the crawler reads links and robots metas from (the one-pass scanner, or
/// libxml2 for a page it declines; the first byte picks the Content-Type's charset), as one
/// link, and as an X-Robots-Tag value. Every link it keeps, canonicalized against the page's base, is
/// an http(s) URL with a host and a port in range and no fragment, and canonicalizing it again
/// changes nothing (else one page would be queued under two names).
@_cdecl("LLVMFuzzerTestOneInput")
public func crawlLinksFuzzer(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let page = URL(string: "https://origin.test/dir/page.html")!
    let canonicalizer = URLCanonicalizer(strippedQueryParameters: ["utm_source"])
    let charsets = ["", "; charset=utf-8", "; charset=\"ISO-8859-1\"", "; charset=utf-16", "; charset=UTF-16LE", "; charset=utf-32",
                    "; charset=shift_jis", "; charset=x-unknown", "; charset=EBCDIC-US", "; charset="]
    let contentType = "text/html" + charsets[Int(bytes.first ?? 0) % charsets.count]
    let directives = RobotsDirectives(productToken: "relayfetch")
    let links = LinkExtractor.links(in: Data(bytes), url: page, contentType: contentType, metaNames: directives.metaNames)
    let base = links.base ?? page.absoluteString
    for reference in links.references.prefix(64) { check(canonicalizer, reference, base: base) }
    fuzzCheck(links.metas.allSatisfy { directives.metaNames.contains($0.name) }, "a meta nobody asked for was kept")
    let text = String(decoding: bytes, as: UTF8.self)
    check(canonicalizer, text, base: page.absoluteString)
    _ = directives.nofollow(headerValues: [text], metas: links.metas)
    return 0
}

private func check(_ canonicalizer: URLCanonicalizer, _ reference: String, base: String) {
    guard let (url, host) = canonicalizer.canonical(reference, relativeTo: base) else { return }
    fuzzCheck(url.hasPrefix("http://") || url.hasPrefix("https://"), "\(url.debugDescription) is not http(s)")
    fuzzCheck(!host.isEmpty, "\(url.debugDescription) has no host")
    fuzzCheck(!url.contains("#"), "\(url.debugDescription) keeps a fragment")
    if let port = URL(string: url)?.port { fuzzCheck((0...65535).contains(port), "\(url.debugDescription) has port \(port)") }
    let again = canonicalizer.canonical(url, relativeTo: nil)
    fuzzCheck(again?.url == url && again?.host == host,
              "\(reference.debugDescription) -> \(url.debugDescription) -> \(String(describing: again?.url).debugDescription)")
}
