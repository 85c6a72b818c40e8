import Foundation
import RelayFetch

/// `relayfetch get URL`: one resource, like curl, through the relays given.
struct GetCommand: Subcommand {
    static let help = """
    Usage: relayfetch get URL [options]

    Fetch one URL through privacy relays and write the body to standard output as it arrives.
    Redirects are followed (at most 20). Nothing is written to disk unless -o is given.
    Any size streams in flat memory; a slow reader slows the relays rather than growing memory.
    No time limit applies unless --max-time is given: --idle-timeout ends a transfer that stalls.

    Options:
      -o, --output FILE        write the body to FILE instead of standard output: written under no
                               name (or a temporary one) next to FILE and renamed to FILE once
                               complete, so a failed transfer leaves no partial file
      -C, --continue -         resume: ask for the rest of FILE (-o) with Range, validated with
                               If-Range against the strong ETag FILE was saved with (extended
                               attribute user.relayfetch.etag), else FILE's time (its
                               Last-Modified); a changed resource comes back whole. Any answer but
                               206 or 2xx leaves FILE as it was and fails. A connection lost
                               mid-file is resumed the same way (up to 5 tries while bytes arrive)
      --max-filesize BYTES     fail when the body is larger (suffix K, M, G or T for KiB ... TiB);
                               under -C -, when the whole file would be; no partial file is left,
                               unless --keep-partial
      --keep-partial           on failure keep what arrived in FILE, with the response's
                               Last-Modified as its time, for a later -C -
      -i, --include            print the response status line and headers before the body
      -f, --fail               exit 1 when the server answers with a status of 400 or more,
                               writing nothing (FILE stays as it was)
      -v, --verbose            print the route, each hop's connect time and the exchange to stderr
      -H, --header 'N: v'      extra request header sent to the origin (repeatable)
      -h, --help               show this help
    Relay options:
    \(RelayOptions.help(maximumTimeDefault: "none", allowsDirect: true))

    Exit status: 0 success, 1 failure (the error names the failing hop), 2 bad usage.
    Example:
      relayfetch get https://origin.test/ --relay https://127.0.0.11:3129 \\
          --relay-header 'Proxy-Authorization: Bearer TOKEN' --relay-cacert ca.pem --cacert ca.pem
    """

    var url: URL
    var relay = RelayOptions()
    var outputPath: String?
    var includeHeaders = false
    var failOnHTTPError = false
    var verbose = false
    var headers: [(name: String, value: String)] = []
    var maximumFileSize: Int?
    var keepPartial = false
    var resume = false

    /// Parses the arguments after `get`; nil when `--help` was asked for.
    static func parse(_ arguments: [String]) throws -> GetCommand? {
        var scanner = ArgumentScanner(arguments)
        var relay = RelayOptions()
        relay.allowsDirect = true
        var positionals: [String] = []
        var command = GetCommand(url: URL(fileURLWithPath: "/"))
        while let argument = scanner.next() {
            if try relay.parse(&scanner) { continue }
            switch argument {
            case "-h", "--help": return nil
            case "-o", "--output": command.outputPath = try scanner.value()
            case "-i", "--include": command.includeHeaders = true
            case "-f", "--fail": command.failOnHTTPError = true
            case "-v", "--verbose": command.verbose = true
            case "--keep-partial": command.keepPartial = true
            case "--max-filesize": command.maximumFileSize = try scanner.byteCount()
            case "-C", "--continue":
                let offset = try scanner.value()
                guard offset == "-" else { throw UsageError("-C takes \"-\" (resume from the end of the -o file), not \"\(offset)\"") }
                command.resume = true
            case "-H", "--header":
                let (name, value) = try RelayOptions.headerField(try scanner.value())
                command.headers.append((name, value))
            default:
                if argument.hasPrefix("-") && argument != "-" { throw UsageError("unknown option \(argument) for get (see relayfetch get --help)") }
                positionals.append(argument)
            }
        }
        guard positionals.count == 1 else {
            throw UsageError(positionals.isEmpty ? "get needs a URL (see relayfetch get --help)"
                                                 : "get takes one URL, got \(positionals.count)")
        }
        command.url = try Self.validatedURL(positionals[0])
        if command.resume && command.outputPath == nil { throw UsageError("-C - resumes a file: it needs -o FILE") }
        if command.resume && command.includeHeaders { throw UsageError("-C - and -i do not go together (the headers would land inside the file)") }
        try relay.validate()
        try relay.requireRelays(for: "get")
        command.relay = relay
        return command
    }

    static func validatedURL(_ text: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme else {
            throw UsageError("malformed URL \"\(text)\" (expected something like https://example.com/)")
        }
        guard ["http", "https"].contains(scheme.lowercased()) else {
            throw UsageError("unsupported URL scheme \"\(scheme)\" in \(text) (use http:// or https://)")
        }
        guard let host = url.host, !host.isEmpty else {
            throw UsageError("malformed URL \"\(text)\": no host")
        }
        return url.withLowercasedHost  // one spelling of each host from here on
    }

    func run(io: CommandIO) async -> Int32 {
        var relay = relay
        // A download may take as long as it needs: the idle timeout ends a stalled one.
        if relay.maximumTime == nil { relay.maximumTime = .infinity }
        guard let session = await relay.makeSession(io: io) else { return 1 }
        defer { session.invalidate() }
        if verbose {
            // An OHTTP relay without a --relay chain has no hops, but is no direct route.
            let relays = (session.configuration.proxyConfigurations.first?.relayHops ?? []).compactMap { $0.endpointURL?.absoluteString }
                + (relay.ohttpRelay.map { ["ohttp:\($0.absoluteString)"] } ?? [])
            io.log(relays.isEmpty ? "* route: direct (--direct)" : "* route: " + (relays + [url.host ?? ""]).joined(separator: " -> "))
            session.onTunnelOpen { reports in reports.forEach { io.log("* \($0)") } }
            io.log("> GET \(url.absoluteString)")
        }
        do {
            let response = try await transfer(session: session, io: io)
            if failOnHTTPError && response.statusCode >= 400 {
                io.log("relayfetch: error: the server answered \(response.statusCode) for \(response.url.absoluteString)")
                return 1
            }
            return 0
        } catch let error as GetFailure {
            io.log("relayfetch: error: \(error.description)")
            return 1
        } catch {
            io.log("relayfetch: error: \(describe(error))")
            return 1
        }
    }

    /// The error as one sentence; a size limit names the option that set it.
    func describe(_ error: Error) -> String {
        guard let fetch = error as? FetchError, case .responseTooLarge = fetch.code, let maximumFileSize else { return "\(error)" }
        if !keepPartial, resume, let outputPath, DownloadFile.resumption(of: URL(fileURLWithPath: outputPath)) != nil {
            // The limit is on the whole file: the partial one plus the rest would pass it.
            return "the whole file would be larger than --max-filesize \(maximumFileSize) bytes; \(outputPath) keeps what it had"
        }
        let kept = outputPath == nil ? "" : keepPartial ? "; what arrived is kept in \(outputPath!)" : "; no file was written (--keep-partial keeps what arrived)"
        return "the body is larger than --max-filesize \(maximumFileSize) bytes\(kept)"
    }
}

/// A failure `get` explains itself (the file could not be resumed or written).
struct GetFailure: Error, CustomStringConvertible {
    let description: String
}
