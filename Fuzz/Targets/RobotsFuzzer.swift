import Foundation
@testable import Crawler

/// The input as a robots.txt for "relayfetch", then as a pattern (first line) and a path (second
/// line). The parse keeps robots.txt itself allowed and a Crawl-delay a finite number of seconds;
/// the linear pattern matcher gives the answer a plain dynamic-programming matcher gives.
@_cdecl("LLVMFuzzerTestOneInput")
public func robotsFuzzer(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let rules = RobotsRules.parse(Data(bytes), productToken: "relayfetch")
    fuzzCheck(rules.allows("/robots.txt"), "robots.txt itself is disallowed")
    if let delay = rules.crawlDelay { fuzzCheck(delay.isFinite && delay >= 0, "Crawl-delay of \(delay) s") }
    for line in bytes.split(separator: 0x0A).prefix(8) {
        _ = rules.allows(String(decoding: line, as: UTF8.self))
    }

    let lines = bytes.split(separator: 0x0A, maxSplits: 1, omittingEmptySubsequences: false)
    let pattern = Array(lines[0].prefix(128)), path = Array((lines.count > 1 ? lines[1] : []).prefix(256))
    let linear = RobotsPattern(pattern).matches(path)
    fuzzCheck(linear == referenceMatch(pattern, path),
              "pattern \(String(decoding: pattern, as: UTF8.self).debugDescription) on \(String(decoding: path, as: UTF8.self).debugDescription): \(linear)")
    return 0
}

/// RFC 9309's matching by table: `matched[i][j]` says whether the first i pattern bytes match the
/// first j path bytes; a pattern matches a prefix of the path (all of it after a final `$`).
private func referenceMatch(_ pattern: [UInt8], _ path: [UInt8]) -> Bool {
    let anchored = pattern.last == UInt8(ascii: "$")
    let body = anchored ? Array(pattern.dropLast()) : pattern
    var matched = [[Bool]](repeating: [Bool](repeating: false, count: path.count + 1), count: body.count + 1)
    matched[0][0] = true
    for (offset, byte) in body.enumerated() {
        let i = offset + 1
        for j in 0...path.count {
            if byte == UInt8(ascii: "*") {
                matched[i][j] = matched[i - 1][j] || (j > 0 && matched[i][j - 1])
            } else {
                matched[i][j] = j > 0 && matched[i - 1][j - 1] && byte == path[j - 1]
            }
        }
    }
    return anchored ? matched[body.count][path.count] : matched[body.count].contains(true)
}
