import HTTPCore
import Foundation
import RelayFetch

/// The options that choose how relayfetch resolves the names it dials itself (the first relay,
/// excluded hosts, an OHTTP relay): an encrypted resolver, and whether plain DNS is refused.
/// Part of the relay options every fetching command shares.
struct NameResolutionOptions {
    static let help = """
      --doh URL                resolve the names relayfetch dials itself (first relay, excluded
                               hosts, OHTTP relay) with DNS over HTTPS (RFC 8484) at URL
      --doh-post               send DoH queries as POST (default GET)
      --dot HOST[:PORT]        resolve them with DNS over TLS (RFC 7858) at HOST (port 853)
      --odoh-relay URL         resolve them with Oblivious DoH (RFC 9230) through this oblivious
      --odoh-target URL        relay to this target (e.g. https://odoh.example/dns-query)
      --odoh-keys FILE         the target's ODoH configs (default: fetched through the relay)
      --dns-server-address A   IP address of the DoH/DoT server or oblivious relay, so its own
                               name needs no plain DNS (repeatable)
      --require-encrypted-dns  never use the system's plain-text resolver: a name the encrypted
                               resolver cannot resolve is an error
    """

    private var doh: URL?
    private var usesPOST = false
    private var dot: String?
    private var odohRelay: URL?
    private var odohTarget: URL?
    private var odohKeysPath: String?
    private var serverAddresses: [String] = []
    private var required = false

    /// Consumes the current option if it is one of these; returns false otherwise.
    mutating func parse(_ scanner: inout ArgumentScanner) throws -> Bool {
        switch scanner.current {
        case "--doh": doh = try Self.httpsURL(try scanner.value(), option: "--doh", example: "https://dns.example/dns-query")
        case "--doh-post": usesPOST = true
        case "--dot":
            let text = try scanner.value()
            guard !text.isEmpty, !text.contains("/") else { throw UsageError("--dot needs a host name such as dns.example, not \"\(text)\"") }
            dot = text.lowercased()
        case "--odoh-relay": odohRelay = try Self.httpsURL(try scanner.value(), option: "--odoh-relay", example: "https://relay.example/proxy")
        case "--odoh-target": odohTarget = try Self.httpsURL(try scanner.value(), option: "--odoh-target", example: "https://odoh.example/dns-query")
        case "--odoh-keys":
            let path = try scanner.value()
            guard FileManager.default.isReadableFile(atPath: path) else { throw UsageError("--odoh-keys \(path): no such readable file") }
            odohKeysPath = path
        case "--dns-server-address":
            let text = try scanner.value()
            guard Self.isIPAddress(text) else { throw UsageError("--dns-server-address needs an IP address, not \"\(text)\"") }
            serverAddresses.append(text)
        case "--require-encrypted-dns": required = true
        default: return false
        }
        return true
    }

    /// Whether any of these options was given.
    var isSet: Bool { doh != nil || dot != nil || odohRelay != nil || odohTarget != nil || required }

    /// Refuses combinations that make no sense; call after parsing.
    func validate() throws {
        let resolvers = [doh != nil, dot != nil, odohRelay != nil || odohTarget != nil].filter { $0 }.count
        if resolvers > 1 { throw UsageError("use one of --doh, --dot and --odoh-relay/--odoh-target") }
        if (odohRelay == nil) != (odohTarget == nil) { throw UsageError("--odoh-relay and --odoh-target go together") }
        if usesPOST && doh == nil { throw UsageError("--doh-post applies to --doh") }
        if odohKeysPath != nil && odohTarget == nil { throw UsageError("--odoh-keys applies to --odoh-target") }
        if !serverAddresses.isEmpty && resolvers == 0 {
            throw UsageError("--dns-server-address is the address of the --doh, --dot or --odoh-relay server")
        }
    }

    /// The privacy context these options describe; nil when none was asked for.
    func privacyContext() throws -> PrivacyContext? {
        var resolver: ResolverConfiguration?
        if let doh {
            resolver = .https(doh, serverAddresses: serverAddresses)
            resolver?.usesPOST = usesPOST
        } else if let dot {
            resolver = .tls(dot, serverAddresses: serverAddresses)
        } else if let odohRelay, let odohTarget {
            let keys = try odohKeysPath.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
            resolver = .oblivious(relay: odohRelay, target: odohTarget, keys: keys)
            resolver?.serverAddresses = serverAddresses
        }
        guard resolver != nil || required else { return nil }
        let context = PrivacyContext(description: "relayfetch command line")
        context.requireEncryptedNameResolution(required, fallbackResolver: resolver)
        return context
    }

    private static func httpsURL(_ text: String, option: String, example: String) throws -> URL {
        guard let url = URL(string: text), url.scheme?.lowercased() == "https", url.host?.isEmpty == false else {
            throw UsageError("\(option) needs an https URL such as \(example), not \"\(text)\"")
        }
        return url.withLowercasedHost
    }

    private static func isIPAddress(_ text: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }
}
