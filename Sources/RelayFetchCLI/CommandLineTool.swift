import Foundation
import RelayFetch

/// The `relayfetch` command: dispatches to one subcommand and returns the exit status
/// (0 success, 1 failure, 2 bad usage).
public enum CommandLineTool {
    /// Each subcommand by the word that names it.
    static let subcommands: [String: any Subcommand.Type] = [
        "get": GetCommand.self, "page": PageCommand.self, "oauth": OAuthCommand.self,
        "crawl": CrawlCommand.self, "profile": ProfileCommand.self, "proxy": ProxyCommand.self,
    ]

    static let help = """
    Usage: relayfetch COMMAND [options]

    Fetch web resources privately: every byte goes through the relays you name, nothing about
    browsing is written to disk, and a relayed request never falls back to a direct connection.
    A command given no relay uses the installed profiles (see relayfetch profile status), and
    without them refuses to run unless --direct says to connect to origins directly (crawl never
    does).

    Commands:
      get URL        fetch one resource (like curl); see relayfetch get --help
      page URL       load a page and every subresource (like a browser); see relayfetch page --help
      oauth SCENARIO.json...
                     run OAuth / OpenID Connect login flows; see relayfetch oauth --help
      crawl SEED...  crawl sites politely and resumably; see relayfetch crawl --help
      proxy          serve SOCKS5 and HTTP proxy for other programs through the relays;
                     see relayfetch proxy --help
      profile check|show FILE, profile status
                     explain a com.apple.relay.managed profile, or the installed ones; see
                     relayfetch profile --help
      version        print the versions of relayfetch and the libraries it uses

    Options:
      -h, --help     show this help
      --version      same as the version command
    """

    public static func run(_ arguments: [String], io: CommandIO = .standard) async -> Int32 {
        guard let command = arguments.first else {
            io.log(help)
            return 2
        }
        let rest = Array(arguments.dropFirst())
        do {
            switch command {
            case "-h", "--help":
                io.print(help)
                return 0
            case "help":
                return try HelpCommand.run(rest, io: io)
            case "--version", "version":
                io.print(VersionCommand.text())
                return 0
            default:
                guard let subcommand = subcommands[command] else {
                    throw UsageError("unknown command \"\(command)\" (see relayfetch --help)")
                }
                return try await subcommand.main(rest, io: io)
            }
        } catch {
            io.log(usageLine(for: error))
            return 2
        }
    }

    /// The one line printed for an error met while reading the command line (exit status 2):
    /// control characters escaped, so a value repeated from the arguments or a file cannot
    /// break it into several lines or reach the terminal as an escape sequence.
    static func usageLine(for error: any Error) -> String { "relayfetch: " + UsageError.oneLine("\(error)") }
}
