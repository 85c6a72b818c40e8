import Foundation
import XCTest
import Crawler
import RelayFetchTestSupport

/// `relayfetch crawl` as a user runs it: usage errors, seeds from a file and stdin, JSON lines
/// and WARC outputs, resume after kill -9, progress on a terminal only.
final class CrawlCommandTests: XCTestCase {
    override func setUpWithError() throws {
        try TestServers.ensureRunning()
        guard FileManager.default.isExecutableFile(atPath: CommandRun.executable) else {
            throw TestServerError(description: "build the executable first (swift build): \(CommandRun.executable)")
        }
    }

    private func temporary(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-crawl-\(UUID().uuidString)-\(name)")
    }

    func testBadUsageExitsTwoWithOneClearLine() async {
        let cases: [([String], String)] = [
            (["crawl"], "crawl needs at least one seed URL"),
            (["crawl", "ftp://origin.test/"], "unsupported URL scheme \"ftp\""),
            (["crawl", "https://origin.test/", "--allow", "("], "\"(\" is not a valid regular expression"),
            (["crawl", "https://origin.test/", "--max-pages", "0"], "--max-pages needs a whole number from 1 to 1000000000000"),
            (["crawl", "https://origin.test/", "--max-bytes", "lots"], "--max-bytes needs a byte count from 1 to 1024T"),
            (["crawl", "--seeds", "/nonexistent-seeds.txt"], "--seeds /nonexistent-seeds.txt: no such readable file"),
            (["crawl", "https://origin.test/", "--frobnicate"], "unknown option --frobnicate for crawl"),
            (["crawl", "https://origin.test/", "--accept-type", "html"], "--accept-type needs a media type such as text/html"),
            (["crawl", "https://origin.test/", "--session-scope", "tab"], "--session-scope must be page, host or crawl, not \"tab\""),
            (["crawl", "https://origin.test/", "--chain", "--relay", "https://r"], "with --chain, the first chain needs relays too"),
            (["crawl", "https://origin.test/", "--relay", "https://r", "--chain", "--max-pages", "3"],
             "only relay options may follow --chain, not --max-pages"),
            (["crawl", "https://origin.test/", "--relay", "https://r", "--chain"], "--chain needs --relay (or --profile) options after it"),
        ]
        for (arguments, expected) in cases {
            let run = await CommandRun.run(arguments)
            XCTAssertEqual(run.status, 2, "\(arguments)")
            XCTAssertTrue(run.stderr.contains(expected), "expected \(expected)\ngot \(run.stderr)")
            XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, "one error line: \(run.stderr)")
        }
    }

    /// Seeds from a file and from stdin; one JSON line per page; a WARC file warcio accepts,
    /// with a response record per fetched page.
    func testSeedsFromFileAndStdinWithJSONLinesAndWARC() throws {
        let site = try CrawlSite(pages: 10)
        let seeds = temporary("seeds.txt"), jsonl = temporary("pages.jsonl"), warc = temporary("warc")
        defer { for file in [seeds, jsonl, warc] { try? FileManager.default.removeItem(at: file) } }
        try "# seeds\n\n\(site.origin)/pages/page-9.html\n".write(to: seeds, atomically: true, encoding: .utf8)
        let command = ([CommandRun.executable, "crawl", "--seeds", seeds.path, "-", "--jsonl", jsonl.path, "--warc", warc.path, "--warc-max-size", "8K",
                        "--strip-query-param", "utm_source"] + CommandRun.relayArguments).map { "'\($0)'" }.joined(separator: " ")
        let run = try TestServers.run(["/bin/sh", "-c", "printf '%s\\n' '\(site.origin)/' | " + command])
        XCTAssertEqual(run.status, 0, run.output)
        XCTAssertTrue(run.output.hasPrefix("crawled 17 pages"), run.output)
        let lines = try String(contentsOf: jsonl, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 18, "17 pages (2 of them sitemaps) and the one robots.txt disallows")
        let records = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:] }
        let page9 = try XCTUnwrap(records.first { $0["url"] as? String == site.origin + "/pages/page-9.html" })
        XCTAssertEqual(page9["depth"] as? Int, 0, "a seed from the file")
        XCTAssertEqual(page9["relayChain"] as? [String], ["127.0.0.11:3129"])
        XCTAssertEqual(page9["status"] as? Int, 200)
        let sent9 = try XCTUnwrap(try site.responses().first { $0.target == "/pages/page-9.html" }, "the origin logged what it sent")
        XCTAssertEqual(page9["contentDigest"] as? String, "sha256:" + sent9.sha256, "the digest of the bytes the origin sent")
        XCTAssertEqual(page9["bytes"] as? Int, sent9.bytes)
        XCTAssertNotNil((page9["timings"] as? [String: Any])?["wait"])
        XCTAssertEqual(page9["links"] as? [String], ["2", "4", "6", "0"].map { "\(site.origin)/pages/page-\($0).html" } + ["\(site.origin)/"],
                       "links in document order, canonical (./, ../pages/./, %70, #section, utm_source)")
        let files = try FileManager.default.contentsOfDirectory(atPath: warc.path).sorted().map { warc.appendingPathComponent($0).path }
        XCTAssertGreaterThan(files.count, 1, "rotated at 8 KiB")
        for file in files {
            let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
            XCTAssertLessThanOrEqual(size, 8 << 10, file)
        }
        let check = try TestServers.run([HostileServer.python, "-m", "warcio.cli", "check", "-v"] + files)
        XCTAssertEqual(check.status, 0, check.output)
        XCTAssertEqual(check.output.components(separatedBy: "digest pass").count - 1, 2 * 17 + files.count, "a warcinfo per file, a request and a response per page")
    }

    /// kill -9 three times mid-crawl, then the same command once more: every page fetched, and
    /// (on the origin's log) none fetched twice except pages in flight at a kill, which the
    /// store showed as claimed and not completed. The JSON lines lose no page either.
    func testKilledThreeTimesThenResumedLosesNothingAndRepeatsOnlyWhatWasInFlight() throws {
        let site = try CrawlSite(pages: 200, serverArguments: ["--delay-ms", "5"])
        let store = temporary("crawl.db"), jsonl = temporary("pages.jsonl")
        defer { for file in [store, jsonl] { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file.path + suffix) } } }
        let arguments = ["crawl", site.origin + "/", "--store", store.path, "--jsonl", jsonl.path, "--strip-query-param", "utm_source"]
            + CommandRun.relayArguments
        var inFlightAtKills: Set<String> = []
        for threshold in [30, 80, 130] {
            let process = try CommandRun.start(arguments)
            let deadline = Date().addingTimeInterval(20)
            while try site.pageFetchCounts().values.reduce(0, +) < threshold && Date() < deadline && process.isRunning { usleep(5_000) }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationReason, .uncaughtSignal, "killed mid-crawl, not finished (threshold \(threshold))")
            let claimed = try SQLiteCrawlStore(path: store.path).urls(in: .claimed)
            inFlightAtKills.formUnion(claimed.compactMap { URLComponents(string: $0)?.percentEncodedPath })
        }
        let final = try TestServers.run([CommandRun.executable] + arguments)
        XCTAssertEqual(final.status, 0, final.output)
        let counts = try site.pageFetchCounts()
        XCTAssertEqual(Set(counts.keys), Set(try site.expectedPaths()), "no page lost")
        let repeated = Set(counts.filter { $0.value > 1 }.keys)
        XCTAssertTrue(repeated.isSubset(of: inFlightAtKills), "fetched twice but not in flight at a kill: \(repeated.subtracting(inFlightAtKills))")
        XCTAssertLessThanOrEqual(repeated.count, 3 * 8, "at most what was in flight at the three kills")
        let stored = try SQLiteCrawlStore(path: store.path)
        XCTAssertEqual(try stored.counts(), [.fetched: try site.expectedPaths().count, .blockedByRobots: 1])
        var lineCounts: [String: Int] = [:]
        for line in try String(contentsOf: jsonl, encoding: .utf8).split(separator: "\n") {
            let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            if record["outcome"] as? String == "fetched", let url = record["url"] as? String, let path = URLComponents(string: url)?.percentEncodedPath {
                lineCounts[path, default: 0] += 1
            }
        }
        XCTAssertEqual(Set(lineCounts.keys), Set(try site.expectedPaths()), "a JSON line for every page")
        XCTAssertTrue(Set(lineCounts.filter { $0.value > 1 }.keys).isSubset(of: inFlightAtKills))
    }

    /// Two chains from the command line, the first with a dead relay: the host moves to the
    /// second, which carries every page; the JSON summary counts the chains and says how each
    /// fared.
    func testChainsFromTheCommandLine() async throws {
        let site = try CrawlSite(pages: 5)
        let run = await CommandRun.run(["crawl", site.origin + "/", "--json", "--strip-query-param", "utm_source", "--relay", TestServers.deadRelayURL.absoluteString,
                                        "--relay-cacert", TestServers.caFile, "--cacert", TestServers.caFile, "--chain"] + CommandRun.relayArguments)
        XCTAssertEqual(run.status, 0, run.stderr)
        let summary = try XCTUnwrap(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
        XCTAssertEqual(summary["relayChains"] as? Int, 2)
        XCTAssertEqual(summary["relayChainsUp"] as? Int, 1)
        XCTAssertEqual(summary["fetched"] as? Int, try site.expectedPaths().count)
        XCTAssertEqual(Set(try site.requests().map(\.peer)), ["127.0.0.11"])
        let chains = try XCTUnwrap(summary["chains"] as? [[String: Any]], "each chain's health")
        XCTAssertEqual(chains.map { $0["up"] as? Bool }, [false, true])
        XCTAssertEqual(chains.map { $0["relayFailures"] as? Int }, [1, 0])
        XCTAssertEqual(chains.map { $0["pages"] as? Int }, [0, try site.expectedPaths().count])
        XCTAssertEqual(chains.map { $0["hosts"] as? Int }, [0, 1], "the host moved to the live chain")
    }

    /// Fail closed from the command line: relay down for good, exit 1 once the relay wait is
    /// over, with an error naming the chain and its failure; nothing at the origin (which the
    /// same command through a live relay does reach).
    func testRelayDownExitsOneAndNothingReachesTheOrigin() async throws {
        let site = try CrawlSite(pages: 3)
        let dead = await CommandRun.run(["crawl", site.origin + "/", "--retries", "0", "--relay-wait", "1", "--relay", TestServers.deadRelayURL.absoluteString,
                                         "--relay-cacert", TestServers.caFile, "--cacert", TestServers.caFile])
        XCTAssertEqual(dead.status, 1, dead.stdoutText + dead.stderr)
        XCTAssertTrue(dead.stdoutText.contains("0 fetched, 1 failed"), dead.stdoutText)
        XCTAssertTrue(dead.stdoutText.contains("; 1 failed waiting for relays"), dead.stdoutText)
        XCTAssertTrue(dead.stderr.contains("relayfetch: error: 1 URL failed waiting for a relay chain; last: no relay chain came back within 1 s "
                                           + "(the relay wait): every relay chain for origin.test is down (chain 1 (127.0.0.13:3129): hop 1 (127.0.0.13:3129"),
                      dead.stderr)
        XCTAssertTrue(dead.stderr.contains("; --relay-wait sets how long a URL waits for a relay chain\n"), "the command adds the option: \(dead.stderr)")
        XCTAssertEqual(try site.requests().count, 0)
        let live = await CommandRun.run(["crawl", site.origin + "/", "--max-pages", "1"] + CommandRun.relayArguments)
        XCTAssertEqual(live.status, 0, live.stderr)
        XCTAssertGreaterThan(try site.requests().count, 0)
    }

    /// A relay that is down for the first 3 s (late_relay.py on 127.0.0.104, then forwarding to
    /// relay A's plain port): on a terminal the progress line counts the URLs waiting for it; with
    /// one retry allowed the crawl still fetches every page, once, through squid only, and exits 0.
    func testURLsWaitingForARelayShowInProgressAndAreFetchedWhenItComesBack() throws {
        let site = try CrawlSite(pages: 8)
        let relay = try HostileServer(script: "late_relay.py", host: "127.0.0.104", arguments: ["--down-for", "3"])
        let arguments = [CommandRun.executable, "crawl", site.origin + "/", "--strip-query-param", "utm_source", "--retries", "1", "--relay", "http://127.0.0.104:\(relay.port)",
                         "--relay-header", "Proxy-Authorization: \(TestServers.relayToken)", "--cacert", TestServers.caFile]
        let terminal = try TestServers.run(["/usr/bin/script", "-qfec", arguments.map { "'\($0)'" }.joined(separator: " "), "/dev/null"])
        XCTAssertEqual(terminal.status, 0, terminal.output)
        XCTAssertTrue(terminal.output.contains(" waiting for relays, "), terminal.output)
        XCTAssertTrue(terminal.output.contains(" 0 failed, "), terminal.output)
        XCTAssertFalse(terminal.output.contains("failed waiting for relays"), terminal.output)
        let counts = try site.pageFetchCounts()
        XCTAssertEqual(Set(counts.keys), Set(try site.expectedPaths()))
        XCTAssertEqual(counts.values.filter { $0 != 1 }, [], "each page once")
        XCTAssertEqual(Set(try site.requests().map(\.peer)), ["127.0.0.11"], "only through the relay")
        XCTAssertEqual(try relay.events().first, "LISTENING")
    }

    /// A progress line while crawling on a terminal (under `script`), none when piped.
    func testProgressOnATerminalOnly() throws {
        let site = try CrawlSite(pages: 30, serverArguments: ["--delay-ms", "50"])
        let arguments = [CommandRun.executable, "crawl", site.origin + "/"] + CommandRun.relayArguments
        let terminal = try TestServers.run(["/usr/bin/script", "-qfec", arguments.map { "'\($0)'" }.joined(separator: " "), "/dev/null"])
        XCTAssertEqual(terminal.status, 0, terminal.output)
        XCTAssertTrue(terminal.output.contains(" queued, ") && terminal.output.contains("pages/s"), terminal.output)
        XCTAssertTrue(terminal.output.contains("\r\u{1B}[K"), "the line rewrites itself")
        XCTAssertTrue(terminal.output.contains("crawled "), "and a summary at the end")
        let piped = try TestServers.run(arguments)
        XCTAssertEqual(piped.status, 0, piped.output)
        XCTAssertFalse(piped.output.contains("\u{1B}[K") || piped.output.contains(" queued, "), piped.output)
        XCTAssertTrue(piped.output.hasPrefix("crawled "), piped.output)
    }

    /// A page whose bytes break the encoding its `<meta>` names (its links, beyond ASCII, send it
    /// to libxml2) writes nothing to our stderr: libxml2's reports of the failed conversion, which
    /// it prints whatever the parse options say, are dropped. The summary is all the output.
    func testAPagesFailedConversionsStayOffStderr() throws {
        let site = try CrawlSite(pages: 1)
        let page = "<!DOCTYPE html><html><head><meta charset=\"ISO-2022-JP\"><title>p\u{E4}ge</title></head>"
            + "<body><a href=\"/caf\u{E9}.htm\">caf\u{E9}</a></body></html>"
        try Data(page.utf8).write(to: site.root.appendingPathComponent("hostile.htm"))
        let run = try TestServers.run([CommandRun.executable, "crawl", site.origin + "/hostile.htm", "--max-depth", "0", "--ignore-robots"]
                                      + CommandRun.relayArguments)
        XCTAssertEqual(run.status, 0, run.output)
        XCTAssertTrue(run.output.hasPrefix("crawled 1 pages"), run.output)
        XCTAssertEqual(run.output.split(separator: "\n").count, 1, "only the summary: \(run.output)")
        XCTAssertEqual(try site.pageFetchCounts()["/hostile.htm"], 1, "the page was fetched")
    }
}
