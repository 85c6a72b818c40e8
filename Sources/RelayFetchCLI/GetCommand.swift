import Foundation
import RelayFetch

/// `relayfetch get URL`: one resource, like curl, through the relays given.
struct GetCommand: Subcommand {
    static let help = """
    Usage: relayfetch get URL [options]

    Fetch one URL through privacy relays and write the body to standard output.
    Redirects are followed (at most 20). Nothing is written to disk unless -o is given.

    Options:
      -o, --output FILE        write the body to FILE instead of standard output
      -i, --include            print the response status line and headers before the body
      -f, --fail               exit 1 when the server answers with a status of 400 or more
      -v, --verbose            print the route, each hop's connect time and the exchange to stderr
      -H, --header 'N: v'      extra request header sent to the origin (repeatable)
      -h, --help               show this help
    Relay options:
    \(RelayOptions.help)

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

    /// Parses the arguments after `get`; nil when `--help` was asked for.
    static func parse(_ arguments: [String]) throws -> GetCommand? {
        var scanner = ArgumentScanner(arguments)
        var relay = RelayOptions()
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
        try relay.validate()
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
        return url
    }

    func run(io: CommandIO) async -> Int32 {
        guard let session = await relay.makeSession(io: io) else { return 1 }
        defer { session.invalidate() }
        if verbose {
            let hops = session.configuration.proxyConfigurations.first?.relayHops ?? []
            io.log(hops.isEmpty ? "* route: direct (no relay configured)"
                   : "* route: " + hops.compactMap { $0.endpointURL?.absoluteString }.joined(separator: " -> ") + " -> \(url.host ?? "")")
            session.onTunnelOpen { reports in reports.forEach { io.log("* \($0)") } }
            io.log("> GET \(url.absoluteString)")
        }
        do {
            let (body, response) = try await session.data(for: HTTPRequest(url: url, headerFields: headers))
            if verbose {
                io.log("< \(response.httpVersion) \(response.statusCode) from \(response.url.absoluteString), \(body.count) bytes")
            }
            var head = Data()
            if includeHeaders {
                var text = "\(response.httpVersion) \(response.statusCode)\r\n"
                for field in response.headerFields { text += "\(field.name): \(field.value)\r\n" }
                head = Data((text + "\r\n").utf8)
            }
            if let outputPath {
                do {
                    try (head + body).write(to: URL(fileURLWithPath: outputPath))
                } catch {
                    io.log("relayfetch: error: cannot write \(outputPath): \(error.localizedDescription)")
                    return 1
                }
            } else {
                io.write(head + body)
            }
            if failOnHTTPError && response.statusCode >= 400 {
                io.log("relayfetch: error: the server answered \(response.statusCode) for \(response.url.absoluteString)")
                return 1
            }
            return 0
        } catch {
            io.log("relayfetch: error: \(error)")
            return 1
        }
    }
}
