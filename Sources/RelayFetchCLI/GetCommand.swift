import HTTPCore
import Foundation
import RelayFetch

/// `relayfetch get URL...`: resources fetched as curl fetches them, through the relays given.
/// Parsing is here; the help text, running and one transfer live in extensions beside it.
struct GetCommand: Subcommand {
    var urls: [URL] = []
    var relay = RelayOptions()
    /// `-o` values, paired with the URLs in order (curl's rule); URLs past them go to standard output.
    var outputPaths: [String] = []
    var request = RequestOptions()
    var retry = RetryPolicy()
    var writeOut: WriteOut?
    var includeHeaders = false
    var failOnHTTPError = false
    var verbose = false
    var silent = false
    var showError = false
    var progressBar = false
    var maximumFileSize: Int?
    var keepPartial = false
    var resume = false
    var followsRedirects = true
    /// curl's --max-redirs; -1 for no limit.
    var maximumRedirects = 20
    var parallel = false
    var parallelMaximum = 50

    /// Parses the arguments after `get`; nil when `--help` was asked for.
    static func parse(_ arguments: [String]) throws -> GetCommand? {
        try parse(arguments, standardInput: { FileHandle.standardInput.readDataToEndOfFile() })
    }

    /// `standardInput` gives what `-d @-`, `-K -` and the like read (the fuzzer's own text).
    static func parse(_ arguments: [String], standardInput: () -> Data) throws -> GetCommand? {
        var scanner = ArgumentScanner(try GetArguments.expanded(arguments, standardInput: standardInput))
        var command = GetCommand()
        command.relay.allowsDirect = true
        var positionals: [String] = []
        // -o FILE and -O pair with the URLs in order (curl's rule); nil stands for -O.
        var outputs: [String?] = []
        var remoteNameAll = false
        while let argument = scanner.next() {
            if try command.relay.parse(&scanner) || command.request.parse(&scanner, standardInput: standardInput) || command.retry.parse(&scanner) {
                continue
            }
            switch argument {
            case "-h", "--help": return nil
            case "-o", "--output": outputs.append(try scanner.value())
            case "-O", "--remote-name": outputs.append(nil)
            case "--remote-name-all": remoteNameAll = true
            case "-i", "--include": command.includeHeaders = true
            case "-f", "--fail": command.failOnHTTPError = true
            case "-v", "--verbose": command.verbose = true
            case "-s", "--silent": command.silent = true
            case "-S", "--show-error": command.showError = true
            case "-#", "--progress-bar": command.progressBar = true
            case "-L", "--location": command.followsRedirects = true
            case "--no-location": command.followsRedirects = false
            case "--max-redirs":
                // -1 is curl's "no limit"; the number parser takes no sign.
                let text = try scanner.value()
                command.maximumRedirects = text == "-1" ? -1 : try NumericArgument.count(text, option: "--max-redirs", in: 0...1_000_000)
            case "-w", "--write-out":
                let format = try scanner.value()
                let text = format.hasPrefix("@")
                    ? String(decoding: try ArgumentFile.read(String(format.dropFirst()), option: "-w", standardInput: standardInput), as: UTF8.self) : format
                command.writeOut = try WriteOut(format: text)
            case "-Z", "--parallel": command.parallel = true
            case "--parallel-max": command.parallelMaximum = try scanner.count(in: 1...300)
            case "--url": positionals.append(try scanner.value())
            case "--keep-partial": command.keepPartial = true
            case "--max-filesize": command.maximumFileSize = try scanner.byteCount()
            case "-C", "--continue":
                let offset = try scanner.value()
                guard offset == "-" else { throw UsageError("-C takes \"-\" (resume from the end of the -o file), not \"\(offset)\"") }
                command.resume = true
            default:
                if argument.hasPrefix("-") && argument != "-" { throw UsageError("unknown option \(argument) for get (see relayfetch get --help)") }
                positionals.append(argument)
            }
        }
        guard !positionals.isEmpty else { throw UsageError("get needs a URL (see relayfetch get --help)") }
        command.urls = try positionals.map(Self.validatedURL)
        if remoteNameAll && outputs.count < command.urls.count { outputs += Array(repeating: nil, count: command.urls.count - outputs.count) }
        if outputs.count > command.urls.count { throw UsageError("\(outputs.count) -o for \(command.urls.count) URL(s): give one -o (or -O) per URL, in order") }
        command.outputPaths = try zip(outputs, command.urls).map { try $0 ?? RemoteFileName.name(for: $1) }
        try command.validate()
        return command
    }

    private mutating func validate() throws {
        if resume && outputPaths.count < urls.count { throw UsageError("-C - resumes a file: it needs -o FILE for each URL") }
        if resume && includeHeaders { throw UsageError("-C - and -i do not go together (the headers would land inside the file)") }
        if resume && request.range != nil { throw UsageError("-C - and -r do not go together (each asks for a range)") }
        if urls.count > 1, case .upload("-") = request.body { throw UsageError("-T - reads standard input once: give one URL") }
        try request.validate()
        try relay.validate()
        try relay.requireRelays(for: "get")
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

    /// Where each URL's body goes: its -o file, or standard output.
    var targets: [Target] {
        urls.indices.map { Target(index: $0 + 1, url: urls[$0], outputPath: $0 < outputPaths.count ? outputPaths[$0] : nil) }
    }

    /// One URL and where its body goes.
    struct Target {
        let index: Int
        let url: URL
        let outputPath: String?
    }
}

/// A failure `get` explains itself (the file could not be resumed or written).
struct GetFailure: Error, CustomStringConvertible {
    let description: String
}
