#if canImport(Glibc)
import Glibc
#endif
import Crawler
import Foundation
import RelayFetch

/// `relayfetch crawl SEED...`: a polite, resumable batch crawl through the relays given.
struct CrawlCommand: Subcommand {
    static let help = """
    Usage: relayfetch crawl SEED... [options]

    Crawl from the seed URLs through the relays given, robots.txt honoured (fetched through the
    same relays) and every host treated politely, following links within the scope. Frontier,
    seen set and results live in an embedded SQLite store: in memory (nothing on disk) unless
    --store names a file, which makes the crawl resumable: rerun the same command after a crash.
    With --store postgres://..., workers on many machines share one crawl: run the same command
    on each.

    Seeds:
      SEED                     a start URL (repeatable); - reads URLs from stdin, one a line
      --seeds FILE             read start URLs from FILE, one a line (blank and # lines skipped)
    Scope:
      --same-domain            follow any host under a seed's registrable domain (public suffix
                               list); default: only the seeds' own hosts
      --allow REGEX            follow only URLs matching REGEX (repeatable: any of them)
      --deny REGEX             never follow URLs matching REGEX (repeatable; wins over --allow)
      --max-depth N            follow links at most N steps from a seed
      --max-pages N            stop after N pages, earlier runs and other workers included
      --max-bytes N            stop after N body bytes (suffix K, M or G), the same way
      --strip-query-param NAME remove query parameter NAME before URLs are compared (repeatable)
      --max-links-per-page N   take at most N distinct links from one page (default 10000; a
                               sitemap gives up to 50000); the summary says when pages had more
      --accept-type TYPE       read only responses of this media type, e.g. text/html or text/*
                               (repeatable); another type's body is not read (the transfer stops
                               after its header) and the page is recorded as type-skipped;
                               sitemaps are still read while they are followed
    Politeness:
      --concurrency N          requests in flight overall (default 8)
      --per-host N             requests in flight per host (default 2)
      --delay SECS             seconds between request starts to one host (default 0); a
                               robots.txt Crawl-delay raises it
      --rate N                 at most N request starts per second overall
      --retries N              retries after a relay failure, 429, 500, 502, 503 or 504 (default 2):
                               exponential backoff with jitter, or the server's Retry-After
      --relay-wait SECS        how long a URL may wait while every relay chain for its host is
                               down (default 300: outlasts a relay restart, the chains' backoff
                               tops out at 30 s); waiting uses no retry, and past it the URL
                               fails naming each chain's last failure (exit status 1)
      --ignore-robots          do not fetch or obey robots.txt, nor the robots rules of pages
      --no-sitemaps            do not follow the sitemaps robots.txt names (by default sitemap
                               indexes, sitemaps and .xml.gz sitemaps give links)
      --session-scope S        how far cookies and cached responses reach, in memory: page (the
                               default: a fresh ephemeral store per page, nothing set by one page
                               is sent with another), host (one store per host, never sent to
                               another host) or crawl (one store for every page). Relay and origin
                               connections are reused in every scope (an origin may link the
                               pages one connection carried)
      --requisites             load each HTML page's requisites (style sheets and their imports,
                               scripts, images, frames) like a browser, through the same chain and
                               session; in the JSON lines and the WARC files with their page (not
                               queued as links; robots.txt and per-host limits do not apply)
    Robots rules:
      robots.txt is read per host through the relays and obeyed (the relayfetch group, else *).
      Answered 429 or 5xx, or lost to a network failure, it disallows everything for now: the
      host's URLs wait (its Retry-After, else a backoff) and it is asked again, --retries times
      before they are recorded as blocked; a 4xx other than 429 allows everything. A page whose
      <meta name="robots"> or <meta name="relayfetch"> says nofollow or none, or whose
      X-Robots-Tag header does (for every agent, or prefixed "relayfetch:"; another agent's
      prefix does not apply), gives no link. rel="nofollow" on a single link is a hint, as
      search engines treat it: that link is still followed.
    Store and outputs:
      --store FILE             keep the crawl in this SQLite file (WAL mode) to resume it; one
                               process per file (another one on it is refused, exit status 1)
      --store postgres://USER@HOST:PORT/DB?sslmode=verify-full
                               keep the crawl in PostgreSQL, shared by every worker given the
                               same store: a postgres:// or postgresql:// URL, or libpq's
                               key=value pairs ('host=db dbname=crawl sslmode=verify-full').
                               Every libpq parameter in it applies (sslmode, sslrootcert,
                               connect_timeout, ...). Use sslmode=verify-full: libpq's default
                               (prefer) falls back to plain text and checks no certificate.
                               Passwords are shown as *** in every message; keep them in
                               ~/.pgpass or PGPASSWORD rather than on a command line that ps
                               shows. The database connection is direct (your infrastructure,
                               not browsing); pages still go through relays
      --lease SECS             with PostgreSQL: a claimed URL is this worker's for SECS (default
                               60), renewed while it is fetched; a dead worker's URLs return to
                               the queue when their lease runs out
      --change-options         the store holds a crawl started with other scope, limits or
                               politeness options: record this run's instead of refusing
      --jsonl FILE             append a JSON line per page: URL, status, relay chain, timings,
                               links found, content digest, the robots rule that withheld links
      --warc DIR               write the pages as WARC 1.1 to new files in DIR
      --warc-max-size N        start a new WARC file before one passes N bytes (suffix K, M or
                               G; default 1G)
      --json                   print the final summary as JSON
      -h, --help               show this help
    Relay chains:
      --chain                  start another relay chain, formed by the relay options after it
                               (the first chain's --cacert and timeouts apply unless given again).
                               Each host sticks to one chain; a chain whose relay fails is rested
                               (1 s, doubling) and its hosts move to another; with every chain
                               down, URLs wait and are retried. Never a direct connection.
      --profile FILE           repeatable here: each profile is a relay chain of its own
      A crawl needs relays: given no relay option, the installed profiles (relayfetch profile
      status) are its one chain. A host goes only to the chains whose domains cover it (--match-domain,
      --exclude-domain, a profile's domains); a host no chain covers is recorded as failed and
      never fetched. The summary, the progress line and --json give each chain's health: up or
      down, relay failures, pages carried.
    Relay options:
    \(RelayOptions.help)

    A progress line (pages, queue, errors, pages/s) is shown while crawling when stderr is a
    terminal; a summary is printed at the end.
    Exit status: 0 crawled (some pages may have failed), 1 the crawl could not run, no page could
    be fetched, or an output failed (a full disk: the crawl stops, the page being written is not
    marked done, and the same command with --store resumes there), 2 bad usage.
    """

    var seeds: [URL] = []
    var configuration: CrawlConfiguration
    var relay = RelayOptions()
    /// Chains after the first (`--chain` groups).
    var moreChains: [RelayOptions] = []
    var storePath: String?
    var lease: Double?
    var jsonLinesPath: String?
    var warcDirectory: String?
    var warcMaximumSize = 1 << 30
    var json = false

    static func parse(_ arguments: [String]) throws -> CrawlCommand? {
        try parse(arguments, standardInput: { FileHandle.standardInput.readDataToEndOfFile() })
    }

    static func parse(_ arguments: [String], standardInput: () -> Data) throws -> CrawlCommand? {
        let groups = arguments.split(separator: "--chain", omittingEmptySubsequences: false).map(Array.init)
        var scanner = ArgumentScanner(groups[0])
        var options = ScopeOptions()
        var relay = RelayOptions()
        relay.allowsSeveralProfiles = true
        var command = CrawlCommand(configuration: CrawlConfiguration(scope: try CrawlScope()))
        var seedTexts: [String] = []
        while let argument = scanner.next() {
            if try relay.parse(&scanner) { continue }
            if try options.parse(&scanner, into: &command.configuration) { continue }
            switch argument {
            case "-h", "--help": return nil
            case "--seeds":
                let path = try scanner.value()
                guard let data = FileManager.default.contents(atPath: path) else { throw UsageError("--seeds \(path): no such readable file") }
                seedTexts += Self.lines(data)
            case "-": seedTexts += Self.lines(standardInput())
            case "--store": command.storePath = try scanner.value()
            case "--lease": command.lease = try scanner.seconds()
            case "--change-options": command.configuration.replacesStoredOptions = true
            case "--jsonl": command.jsonLinesPath = try scanner.value()
            case "--warc": command.warcDirectory = try scanner.value()
            case "--warc-max-size": command.warcMaximumSize = try scanner.byteCount(in: 1...NumericArgument.maximumBytes)
            case "--json": command.json = true
            case "--requisites": command.configuration.loadsRequisites = true
            default:
                if argument.hasPrefix("-") { throw UsageError("unknown option \(argument) for crawl (see relayfetch crawl --help)") }
                seedTexts.append(argument)
            }
        }
        guard !seedTexts.isEmpty else { throw UsageError("crawl needs at least one seed URL (see relayfetch crawl --help)") }
        command.seeds = try seedTexts.map(GetCommand.validatedURL)
        do {
            command.configuration.scope = try CrawlScope(hostRule: options.sameDomain ? .sameDomain : .sameHost, allow: options.allow,
                                                         deny: options.deny, maximumDepth: options.maximumDepth)
        } catch {
            throw UsageError("\(error)")
        }
        command.configuration.keepBodies = command.warcDirectory != nil
        if command.lease != nil, CrawlStoreLocation(command.storePath).isShared == false {
            throw UsageError("--lease applies to a PostgreSQL store only (--store postgres://...)")
        }
        try relay.validate()
        let groupChains = try groups.dropFirst().map { try RelayOptions.chainGroup($0, inheriting: relay) }
        if !groupChains.isEmpty && !relay.namesRelays {
            throw UsageError("with --chain, the first chain needs relays too (a pool never connects directly)")
        }
        try relay.requireRelays(for: "crawl")
        // Each profile is a chain of its own, in the order given.
        let chains = relay.splitByProfile + groupChains.flatMap(\.splitByProfile)
        command.relay = chains[0]
        command.moreChains = Array(chains.dropFirst())
        return command
    }

    /// Non-empty lines that are not # comments.
    private static func lines(_ data: Data) -> [String] {
        String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    func run(io: CommandIO) async -> Int32 {
        var sessions: [Session] = []
        defer { sessions.forEach { $0.invalidate() } }
        let store: any CrawlStore
        let output: CrawlOutput
        do {
            for chain in [relay] + moreChains {
                var sessionConfiguration = try await chain.sessionConfiguration(warn: io.log)
                sessionConfiguration.maximumRedirects = 0  // a redirect is a link, checked for scope like any other
                sessionConfiguration.allowsDirectConnections = false
                sessions.append(try Session(configuration: sessionConfiguration))
            }
            store = try CrawlStoreLocation(storePath).open(lease: lease ?? 60)
            output = try CrawlOutput(jsonLinesPath: jsonLinesPath, warcDirectory: warcDirectory, warcMaximumSize: warcMaximumSize)
        } catch {
            io.log("relayfetch: error: \(ErrorHint.text(error))")
            return 1
        }
        let crawler: Crawler
        do {
            crawler = try Crawler(configuration: configuration, sessions: sessions, store: store)
        } catch {
            io.log("relayfetch: error: \(ErrorHint.text(error))")
            return 1
        }
        let ticker = isatty(STDERR_FILENO) == 1 ? Self.progressTicker(crawler, io: io) : nil
        func endTicker() {
            guard let ticker else { return }
            ticker.cancel()
            io.progress("\r\u{1B}[K")
        }
        let summary: CrawlProgress
        do {
            // A page its outputs cannot take stops the crawl before the page is marked done.
            summary = try await crawler.run(seeds: seeds) { page in try output.write(page) }
        } catch let error as CrawlError where error.isOutputFailure {
            endTicker()
            io.log("relayfetch: error: \(ErrorHint.text(error)); the crawl stopped"
                   + (storePath == nil ? "" : " before marking that page done: make room, then run the same command to resume"))
            return 1
        } catch {
            endTicker()
            io.log("relayfetch: error: \(ErrorHint.text(error))")
            return 1
        }
        endTicker()
        do {
            try output.close()
        } catch {
            // Every page is marked done by now: a disk that took data late lost part of the outputs.
            io.log("relayfetch: error: \(ErrorHint.text(error)); the crawl ended, but its outputs may miss the last pages written")
            return 1
        }
        report(summary, io: io)
        if let error = summary.relayWaitError {
            let count = summary.failedWaitingForRelays
            io.log("relayfetch: error: \(count) \(count == 1 ? "URL" : "URLs") failed waiting for a relay chain; last: \(ErrorHint.text(error))")
            return 1
        }
        return summary.pagesThisRun > 0 && summary.fetched == 0 ? 1 : 0
    }

    private func report(_ summary: CrawlProgress, io: CommandIO) {
        if json, let data = try? JSONEncoder.sorted.encode(summary) {
            io.write(data + Data("\n".utf8))
            return
        }
        let rate = summary.seconds > 0 ? Double(summary.pagesThisRun) / summary.seconds : 0
        io.print("crawled \(summary.pagesThisRun) pages (\(summary.bytesThisRun) bytes) in \(String(format: "%.2f", summary.seconds)) s, "
                 + "\(String(format: "%.1f", rate)) pages/s; store: \(summary.fetched) fetched, \(summary.failed) failed, "
                 + "\(summary.blockedByRobots) blocked by robots.txt, "
                 + (configuration.acceptedTypes.isEmpty ? "" : "\(summary.skippedByType) skipped by type, ")
                 + "\(summary.queued) queued; \(summary.retries) retries"
                 + (summary.failedWaitingForRelays > 0 ? "; \(summary.failedWaitingForRelays) failed waiting for relays" : "")
                 + (summary.lostClaims > 0 ? "; \(summary.lostClaims) taken over by other workers (not written)" : ""))
        if summary.pagesWithLinksCut > 0 {
            let pages = summary.pagesWithLinksCut == 1 ? "1 page" : "\(summary.pagesWithLinksCut) pages"
            io.print("  \(pages) had more distinct links than taken (--max-links-per-page \(configuration.maximumLinksPerPage)): "
                     + "\(summary.linksCut) links not followed")
        }
        if summary.chains.count > 1 {
            for chain in summary.chains {
                io.print("  relay chain \(chain.chain) (\(chain.relays)): \(chain.up ? "up" : "down"), \(chain.pages) pages, "
                         + "\(chain.relayFailures) relay failures")
            }
        }
    }

    /// "chain 1 up 40 pages, chain 2 down (3 failures)" for the progress line.
    private static func chainsLine(_ chains: [RelayChainHealth]) -> String {
        chains.map { "chain \($0.chain) " + ($0.up ? "up \($0.pages) pages" : "down (\($0.relayFailures) failures)") }.joined(separator: ", ")
    }

    /// Rewrites one progress line on the terminal twice a second.
    private static func progressTicker(_ crawler: Crawler, io: CommandIO) -> Task<Void, Never> {
        Task {
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: 500_000_000)
                guard !Task.isCancelled, let now = try? await crawler.progress() else { continue }
                let rate = now.seconds > 0 ? Double(now.pagesThisRun) / now.seconds : 0
                io.progress("\r\u{1B}[K  \(now.fetched) pages, \(now.queued) queued, \(now.inFlight) in flight, \(now.failed) errors, "
                            + (now.waitingForRelays > 0 ? "\(now.waitingForRelays) waiting for relays, " : "")
                            + String(format: "%.1f pages/s", rate)
                            + (now.chains.count > 1 ? "; " + chainsLine(now.chains) : ""))
            }
        }
    }
}

private extension JSONEncoder {
    static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}

extension CrawlCommand {
    /// The scope, limit and politeness options; the regexes are compiled once all are read.
    struct ScopeOptions {
        var sameDomain = false
        var allow: [String] = []
        var deny: [String] = []
        var maximumDepth: Int?

        /// Consumes the current option if it is one of these; returns false otherwise.
        mutating func parse(_ scanner: inout ArgumentScanner, into configuration: inout CrawlConfiguration) throws -> Bool {
            switch scanner.current {
            case "--same-domain": sameDomain = true
            case "--allow": allow.append(try scanner.value())
            case "--deny": deny.append(try scanner.value())
            case "--max-depth": maximumDepth = try scanner.count(in: 0...1_000_000)
            case "--max-pages": configuration.maximumPages = try scanner.count(in: 1...1_000_000_000_000)
            case "--max-bytes": configuration.maximumBytes = try scanner.byteCount(in: 1...NumericArgument.maximumBytes)
            case "--max-links-per-page": configuration.maximumLinksPerPage = try scanner.count(in: 1...100_000_000)
            case "--strip-query-param": configuration.canonicalizer.strippedQueryParameters.insert(try scanner.value())
            case "--concurrency": configuration.concurrency = try scanner.count(in: 1...10_000)
            case "--per-host": configuration.perHostConcurrency = try scanner.count(in: 1...1_000)
            case "--delay": configuration.delay = try scanner.seconds(allowsZero: true)
            case "--rate": configuration.requestsPerSecond = try scanner.number(in: 0.001...1_000_000, unit: "requests per second")
            case "--retries": configuration.retry.maximumRetries = try scanner.count(in: 0...100)
            case "--relay-wait": configuration.relayWait = try scanner.seconds(allowsZero: true)
            case "--ignore-robots": configuration.obeyRobots = false
            case "--no-sitemaps": configuration.followsSitemaps = false
            case "--session-scope":
                let text = try scanner.value()
                guard let scope = CrawlSessionScope(rawValue: text) else {
                    throw UsageError("--session-scope must be page, host or crawl, not \"\(text)\"")
                }
                configuration.sessionScope = scope
            case "--accept-type":
                let text = try scanner.value()
                let parts = text.split(separator: "/", omittingEmptySubsequences: false)
                guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, !text.contains(";"), !text.contains(" ") else {
                    throw UsageError("--accept-type needs a media type such as text/html or text/*, not \"\(text)\"")
                }
                configuration.acceptedTypes.append(text.lowercased())
            default: return false
            }
            return true
        }
    }
}
