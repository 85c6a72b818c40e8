import Foundation
@testable import RelayFetch

/// The input's first line is the URL a response came from, each further line one Set-Cookie
/// value. Every stored cookie must belong to that host (host-only, or a domain the host is in and
/// not a public suffix), honour its prefix rules, and the Cookie header built from the jar must
/// carry no control character (it goes to the wire as a header field).
@_cdecl("LLVMFuzzerTestOneInput")
public func cookieFuzzer(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    guard !lines.isEmpty, let url = URL(string: lines.removeFirst()), let host = url.host?.lowercased() else { return 0 }
    let jar = CookieJar(clock: { Date(timeIntervalSince1970: 1_800_000_000) })
    jar.store(setCookieValues: lines, from: url)
    for cookie in jar.allCookies {
        // RFC 6265bis §5.6 keeps a nameless cookie with a value ("=v" or "v"), never an empty one.
        fuzzCheck(!(cookie.name.isEmpty && cookie.value.isEmpty), "a cookie with neither name nor value")
        if cookie.hostOnly {
            fuzzCheck(cookie.domain == host, "host-only cookie for \(cookie.domain) set by \(host)")
        } else {
            fuzzCheck(host == cookie.domain || host.hasSuffix("." + cookie.domain), "cookie for \(cookie.domain) set by \(host)")
            fuzzCheck(!PublicSuffixList.isPublicSuffix(cookie.domain), "cookie for the public suffix \(cookie.domain)")
        }
        fuzzCheck(cookie.path.hasPrefix("/"), "cookie path \(cookie.path) is not absolute")
        if cookie.secure || cookie.name.hasPrefix("__Secure-") || cookie.name.hasPrefix("__Host-") {
            fuzzCheck(url.scheme?.lowercased() == "https", "secure cookie from \(url.scheme ?? "no scheme")")
        }
        if cookie.name.hasPrefix("__Host-") {
            fuzzCheck(cookie.hostOnly && cookie.path == "/", "__Host- cookie with a domain or path")
        }
        if cookie.sameSite == .unrestricted { fuzzCheck(cookie.secure, "SameSite=None without Secure") }
    }
    if let header = jar.cookieHeader(for: url) {
        fuzzCheck(!header.unicodeScalars.contains { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F },
                     "Cookie header with a control character: \(header.debugDescription)")
    }
    return 0
}
