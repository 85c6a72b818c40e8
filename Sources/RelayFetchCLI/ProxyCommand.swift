import Foundation
import LocalProxy
import RelayFetch

/// `relayfetch proxy`: a local SOCKS5 and HTTP proxy through which other programs' connections
/// go through the relay chains, never directly.
struct ProxyCommand: Subcommand {
    static let help = """
    Usage: relayfetch proxy [options] (--relay URL... | --profile FILE)

    Serve SOCKS5 (RFC 1928, CONNECT with names, IPv4 and IPv6; RFC 1929 passwords) and an HTTP
    proxy (CONNECT, and http:// URLs) on one port, so that any program reaches the hosts the relays
    cover through them. SOCKS5 UDP ASSOCIATE is carried over CONNECT-UDP (RFC 9298) when the chain
    ends in an HTTP/3 hop (--relay-protocol h3), one flow per target, closed after 60 s unused. A target name is sent to the last relay, never resolved here; a host no
    relay configuration covers is refused (SOCKS "not allowed by ruleset", HTTP 403), never reached
    directly, and so is every host when no relay answers. Each username gets sessions of its own:
    clients with different names never share a relay connection, tunnel or TLS session.
    One line per connection goes to standard error when it ends (client, user, chain, bytes each
    way, duration). SIGHUP reloads the relay options' files (profiles); SIGTERM or SIGINT stops
    listening and waits for open connections (--drain-timeout).

    Options:
      --listen ADDR            where to listen: 127.0.0.1:1080 (default), [::1]:PORT, PORT, or
                               unix:PATH (a Unix socket file)
      --listen-mode MODE       the Unix socket's file mode, octal (default 600)
      --allow-remote           allow a --listen address other than loopback (needs --user)
      --user NAME:PASSWORD     a client login (SOCKS5 username/password, HTTP Basic); repeatable;
                               with any, clients must log in
      --log-targets            name each connection's target in its log line (default: "-")
      --drain-timeout SECS     time open connections get after SIGTERM (default 30)
      --handshake-timeout SECS time a client gets to finish its SOCKS5 or HTTP request (default 10)
      --pid-file FILE          write the process ID to FILE while listening
      --check                  validate the options and relay configuration, print it, and exit
      --chain                  start another relay chain, formed by the relay options after it
                               (as crawl's); each connection fails over to another chain when
                               its chain's relay fails, never to a direct connection
      -h, --help               show this help
    \(RelayOptions.helpForCarriedConnections)

    Examples:
      relayfetch proxy --relay https://relay.example:443 --relay-header 'Proxy-Authorization: Bearer T'
      curl --socks5-hostname 127.0.0.1:1080 https://example.com/
      chromium --proxy-server=socks5://127.0.0.1:1080

    Exit status: 0 stopped by a signal (or --check passed), 1 cannot start, 2 bad usage.
    """

    var relay = RelayOptions()
    /// Chains after the first (`--chain` groups): with any, every chain is one of a pool.
    var moreChains: [RelayOptions] = []
    var listen = ProxyListenAddress.tcp(host: "127.0.0.1", port: ProxyListenAddress.defaultPort)
    var listenMode: mode_t = 0o600
    var credentials = ProxyCredentials()
    var userCount = 0
    var logTargets = false
    var drainTimeout: Double = 30
    var handshakeTimeout: Double = 10
    var pidFile: String?
    var check = false

    /// A usage error for an option that describes a fetch (`RelayOptions.notForCarriedConnections`).
    private static func refuseFetchOnlyOption(_ name: String) throws {
        if let why = RelayOptions.notForCarriedConnections[name] {
            throw UsageError("\(name) does not apply to proxy: \(why) (see relayfetch proxy --help)")
        }
    }

    static func parse(_ arguments: [String]) throws -> ProxyCommand? {
        var command = ProxyCommand()
        let groups = arguments.split(separator: "--chain", omittingEmptySubsequences: false).map(Array.init)
        var scanner = ArgumentScanner(groups[0])
        var allowRemote = false
        while let argument = scanner.next() {
            try refuseFetchOnlyOption(argument)
            if try command.relay.parse(&scanner) { continue }
            switch argument {
            case "-h", "--help": return nil
            case "--listen":
                let text = try scanner.value()
                guard let address = ProxyListenAddress(text) else {
                    throw UsageError("--listen \(UsageError.quoted(text)): give ADDRESS:PORT with an IP address ([::1]:PORT for IPv6), a PORT, or unix:PATH")
                }
                command.listen = address
            case "--listen-mode":
                let text = try scanner.value()
                guard let mode = mode_t(text, radix: 8), mode <= 0o777 else { throw UsageError("--listen-mode \(UsageError.quoted(text)): give an octal mode such as 600") }
                command.listenMode = mode
            case "--allow-remote": allowRemote = true
            case "--user":
                let text = try scanner.value()
                guard let colon = text.firstIndex(of: ":"), colon != text.startIndex, text.utf8.count <= 511,
                      text[..<colon].utf8.count <= 255, text[text.index(after: colon)...].utf8.count <= 255 else {
                    throw UsageError("--user needs NAME:PASSWORD (each 1 to 255 bytes)")
                }
                command.credentials.add(username: String(text[..<colon]), password: String(text[text.index(after: colon)...]))
                command.userCount += 1
            case "--log-targets": command.logTargets = true
            case "--drain-timeout": command.drainTimeout = try scanner.seconds(allowsZero: true)
            case "--handshake-timeout": command.handshakeTimeout = try scanner.seconds()
            case "--pid-file": command.pidFile = try scanner.value()
            case "--check": command.check = true
            default:
                throw UsageError(argument.hasPrefix("-") ? "unknown option \(argument) for proxy (see relayfetch proxy --help)"
                                                         : "proxy takes no arguments, got \(UsageError.quoted(argument))")
            }
        }
        try command.relay.validate()
        // Later groups are parsed by the crawl's chain-group reader: their option names are
        // checked here, as the scanner above would split them ("--max-time=5").
        for argument in groups.dropFirst().joined() { try refuseFetchOnlyOption(String(argument.prefix { $0 != "=" })) }
        command.moreChains = try groups.dropFirst().map { try RelayOptions.chainGroup($0, inheriting: command.relay) }
        if !command.moreChains.isEmpty && !command.relay.namesRelays {
            throw UsageError("with --chain, the first chain needs relays too (a pool never connects directly)")
        }
        try command.relay.requireRelays(for: "proxy")
        if ([command.relay] + command.moreChains).contains(where: { $0.ohttpRelay != nil }) { throw UsageError("proxy carries connections, not requests: --ohttp-relay cannot carry them") }
        if !command.listen.isLoopback {
            guard allowRemote else { throw UsageError("--listen \(command.listen) is reachable from other machines: add --allow-remote (and --user)") }
            guard command.credentials.required else { throw UsageError("--allow-remote needs --user: a proxy others can reach must ask for a password") }
        }
        return command
    }
}
