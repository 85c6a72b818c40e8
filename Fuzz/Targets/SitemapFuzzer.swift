import Foundation
@testable import Crawler

/// The input as a sitemap or sitemap index (XML, or gzip XML when it starts with gzip's magic),
/// and as gzip data inflated under a 1 MiB limit, which the result never passes.
@_cdecl("LLVMFuzzerTestOneInput")
public func sitemapFuzzer(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Data(UnsafeBufferPointer(start: data, count: size))
    if let locations = LinkExtractor.sitemapLocations(in: input, url: URL(string: "https://origin.test/sitemap.xml")!) {
        fuzzCheck(locations.allSatisfy { $0 == $0.trimmingCharacters(in: .whitespacesAndNewlines) }, "a location with spaces around it")
    }
    if let inflated = Gunzip.inflate(input, limit: 1 << 20) {
        fuzzCheck(inflated.count <= 1 << 20, "\(inflated.count) bytes inflated past the limit")
    }
    // A slice that does not start at index 0, as a caller may hand over.
    if size > 1 { _ = Gunzip.inflate(input.dropFirst(), limit: 1 << 20) }
    return 0
}
