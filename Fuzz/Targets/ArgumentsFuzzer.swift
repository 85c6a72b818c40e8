import Foundation
@testable import RelayFetchCLI
@testable import LocalProxy

/// The input as a command line: arguments split at NUL bytes, the first naming the command
/// (get, page, oauth, crawl, profile, proxy), for that command's parser; nothing runs. The parser
/// returns a command (nil for --help) or throws, and then `relayfetch` exits 2 with one line,
/// which must be non-empty plain text with no control character. A trap is what libFuzzer
/// reports. A parsed command also holds to the rules the parsers enforce: it goes through relays
/// unless --direct was given (crawl always), its durations lie within (0, one year], and a
/// crawl's waits, rate, concurrency and byte limits are within what the crawler computes with.
@_cdecl("LLVMFuzzerTestOneInput")
public func argumentsFuzzer(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let fields = UnsafeBufferPointer(start: data, count: size).split(separator: 0, omittingEmptySubsequences: false)
    let arguments = fields.map { String(decoding: $0, as: UTF8.self) }
    guard let name = arguments.first, arguments.allSatisfy(staysInTheSandbox) else { return 0 }
    enterSandbox()
    let rest = Array(arguments.dropFirst())
    do {
        switch name {
        // "-d @-", "-K -" and the like read standard input: a fixed text here, never the fuzzer's stdin.
        case "get": try GetCommand.parse(rest, standardInput: { Data("url = https://stdin.test/\nsilent\n".utf8) }).map { check($0.relay) }
        case "page": try PageCommand.parse(rest).map { check($0.relay) }
        case "oauth": try OAuthCommand.parse(rest).map { check($0.relay) }
        case "crawl":
            // "-" reads seeds from standard input: a fixed line here, never the fuzzer's stdin.
            if let crawl = try CrawlCommand.parse(rest, standardInput: { Data("https://stdin.test/\n".utf8) }) {
                fuzzCheck(crawl.relay.usesRelays && crawl.moreChains.allSatisfy(\.namesRelays), "a crawl without relays was parsed")
                ([crawl.relay] + crawl.moreChains).forEach(check)
                check(crawl)
            }
        case "profile": _ = try ProfileCommand.parse(rest)
        case "proxy":
            if let proxy = try ProxyCommand.parse(rest) {
                check(proxy.relay)
                fuzzCheck(proxy.listen.isLoopback || proxy.credentials.required, "a proxy others can reach without a login was parsed")
            }
        default: return 0
        }
    } catch {
        let line = CommandLineTool.usageLine(for: error)
        fuzzCheck(line.count > "relayfetch: ".count, "an empty usage error")
        fuzzCheck(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) },
                  "a control character in the usage line \(line.debugDescription)")
    }
    return 0
}

/// A parsed command's relay options: relays (named or installed) or --direct, never neither; durations in range.
private func check(_ relay: RelayOptions) {
    // Relays named or installed (a profile on the fuzzing machine), or --direct: one of them.
    fuzzCheck(relay.usesRelays != relay.direct, "relays: \(relay.usesRelays), --direct: \(relay.direct)")
    for seconds in [relay.connectTimeout, relay.maximumTime, relay.idleTimeout].compactMap({ $0 }) {
        fuzzCheck(seconds > 0 && seconds <= NumericArgument.maximumSeconds, "a duration of \(seconds) s was taken")
    }
}

/// A parsed crawl's waits and rates: nothing a sleep or a task count could overflow on.
private func check(_ crawl: CrawlCommand) {
    let configuration = crawl.configuration
    for seconds in [configuration.delay, configuration.relayWait, crawl.lease ?? 1] {
        fuzzCheck(seconds >= 0 && seconds <= NumericArgument.maximumSeconds, "a wait of \(seconds) s was taken")
    }
    if let rate = configuration.requestsPerSecond { fuzzCheck(rate > 0 && 1 / rate <= NumericArgument.maximumSeconds, "a rate of \(rate)/s") }
    fuzzCheck(configuration.concurrency <= 10_000 && configuration.perHostConcurrency <= 1_000, "concurrency \(configuration.concurrency)")
    fuzzCheck((configuration.maximumBytes ?? 0) <= NumericArgument.maximumBytes && crawl.warcMaximumSize <= NumericArgument.maximumBytes,
              "a byte count past 1 PiB")
}

/// The parsers read the files some options name (crawl's --seeds, oauth's scenarios) and check
/// that others are readable: they run in a folder of their own holding only `scenario.json` and
/// `seeds.txt`, where a relative path reaches nothing else, and an input naming an absolute path
/// or one that climbs out (/dev/zero, a FIFO, ../..), even inside a value (@/dev/zero), is
/// skipped rather than read.
private func staysInTheSandbox(_ argument: String) -> Bool {
    if argument.hasPrefix("/") || argument.hasPrefix("~") || argument.contains("..") { return false }
    // A path may also hide inside a value get reads while parsing (-d @/dev/zero, -K/dev/zero,
    // -F f=</dev/zero, --config=/dev/zero): only the slashes of a URL or a pin may stay.
    let rest = argument.replacingOccurrences(of: "://", with: "").replacingOccurrences(of: "sha256//", with: "")
    return !rest.contains("/")
}

/// Moves into that folder once. scripts/fuzz.sh gives libFuzzer absolute paths, so the corpus
/// and the crash files are still written where they belong.
private func enterSandbox() {
    guard !sandboxEntered else { return }
    sandboxEntered = true
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-arguments-fuzz-\(getpid())")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let scenario = #"{"name": "s", "issuer": "https://idp.test/o", "client": {"id": "c"}, "redirectURI": "http://127.0.0.1:8765/cb", "grant": "client_credentials"}"#
    try? Data(scenario.utf8).write(to: folder.appendingPathComponent("scenario.json"))
    try? Data("https://origin.test/\n# a comment\nhttps://Origin2.Test/a\n".utf8).write(to: folder.appendingPathComponent("seeds.txt"))
    FileManager.default.changeCurrentDirectoryPath(folder.path)
}

nonisolated(unsafe) private var sandboxEntered = false
