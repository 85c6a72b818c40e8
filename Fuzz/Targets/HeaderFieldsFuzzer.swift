import Foundation
@testable import Crawler
@testable import HTTPCore
@testable import RelayFetch
@testable import RelayTransport

/// The input as the value of the response header fields whose values relayfetch reads itself:
/// an HTTP date (Last-Modified, Expires, a cookie's Expires), Retry-After, Alt-Svc and
/// Content-Type. None may trap. A date that parses is written back as IMF-fixdate and reads back
/// as the same instant; a Retry-After wait is finite, not negative, and capped by the policy; an
/// Alt-Svc port is never 0. The input's first eight bytes are also a time written and read back.
/// (A zone offset can move a date in year 9999 or 1601 out of the four-digit years IMF-fixdate
/// writes; such a date must still be written without trapping.)
@_cdecl("LLVMFuzzerTestOneInput")
public func headerFieldsFuzzer(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let text = String(decoding: bytes, as: UTF8.self)

    if let date = HTTPDate.parse(text) {
        fuzzCheck(date.timeIntervalSince1970 == date.timeIntervalSince1970.rounded(.down), "a date with a fraction of a second")
        checkRoundTrip(date)
    }
    fuzzCheck(HTTPResponse.date(fromHTTPDate: text) == HTTPDate.parse(text), "the public date reader disagrees")

    // Any instant between the first year HTTP dates reach (1601) and 9999 survives a round trip.
    if size >= 8 {
        let raw = bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        checkRoundTrip(Date(timeIntervalSince1970: Double(earliest + Int64(raw % UInt64(latest - earliest + 1)))))
    }

    let now = Date(timeIntervalSince1970: 1_800_000_000)
    if let seconds = RetryPolicy.retryAfterSeconds(text, now: now) {
        fuzzCheck(seconds.isFinite && seconds >= 0, "Retry-After of \(seconds) s")
        let policy = RetryPolicy()
        let wait = policy.delay(retry: 1, retryAfter: seconds, jitter: 0.5)
        fuzzCheck(wait >= 0 && wait <= policy.maximumDelay, "a wait of \(wait) s")
    }

    switch AltService.parse(text) {
    case .http3(let port)?:
        fuzzCheck(port > 0, "an HTTP/3 alternative on port 0")
        fuzzCheck(text.contains("h3"), "an HTTP/3 alternative without h3")
    case .clear?, nil:
        break
    }

    let type = ContentType(text).mediaType ?? ""
    fuzzCheck(type == type.lowercased(), "media type \(type.debugDescription) is not in lower case")
    // Bytes, not Characters: U+037E (Greek question mark) is canonically equivalent to ";".
    fuzzCheck(!type.utf8.contains(UInt8(ascii: ";")), "media type \(type.debugDescription) holds a parameter")
    _ = LinkExtractor.isHTML(text)
    _ = LinkExtractor.mayBeSitemap(text, url: URL(string: "https://origin.test/sitemap.xml")!)
    return 0
}

/// 1601-01-01T00:00:00Z and 9999-12-31T23:59:59Z.
private let earliest: Int64 = -11_644_473_600, latest: Int64 = 253_402_300_799

private func checkRoundTrip(_ date: Date) {
    let written = HTTPDate.format(date)
    guard (Double(earliest)...Double(latest)).contains(date.timeIntervalSince1970) else { return }
    fuzzCheck(written.utf8.count == 29 && written.hasSuffix(" GMT"), "\(written.debugDescription) is not IMF-fixdate")
    fuzzCheck(HTTPDate.parse(written) == date, "\(written) does not read back as \(date.timeIntervalSince1970)")
}
