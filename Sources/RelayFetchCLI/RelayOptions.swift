import HTTPCore
import Foundation
import OAuthFlow
import RelayFetch
import RelayProfiles

/// The relay options every fetching command shares. `--relay-header` and `--relay-cacert`
/// apply to the `--relay` before them.
struct RelayOptions {
    static let help = help(maximumTimeDefault: "120")

    /// The options' help; `maximumTimeDefault` says what --max-time is when not given, and
    /// `allowsDirect` whether the command takes --direct.
    static func help(maximumTimeDefault: String, allowsDirect: Bool = false) -> String {
        """
    \(allowsDirect ? directHelp : "")  --relay URL              relay to tunnel through: https://, http:// or socks5://[USER:PASS@]
                               (SOCKS5: the relay resolves the target's name); repeat for a chain,
                               first = nearest the client
      --relay-header 'N: v'    header sent to the preceding --relay only (e.g. Proxy-Authorization)
      --relay-token-oauth FILE
                               the preceding --relay's bearer token, from an identity provider:
                               FILE is an oauth scenario (grant client_credentials or device_code);
                               fetched through the chain up to that relay (asked without it),
                               renewed before it expires and once on a 407
      --relay-privacy-pass URL
                               the preceding --relay (HTTP/1.1) demands Privacy Pass tokens: answer
                               its PrivateToken 407 with a token from the issuer at URL (RFC
                               9578), one per tunnel, in memory only; issued through the chain
                               up to that relay (asked without a token), never directly
      --relay-privacy-pass-oauth FILE
                               attest the preceding --relay's token requests with an access
                               token from an identity provider (FILE: an oauth scenario, as for
                               --relay-token-oauth), sent to the issuer as Authorization: Bearer
      --relay-cacert FILE      PEM CA file to verify the preceding --relay's certificate
      --relay-pin sha256//B64  trust the preceding --relay by its public key (SHA-256 of the SPKI,
                               base64, as curl's --pinnedpubkey); repeatable
      --relay-protocol P       for the preceding --relay: auto (default: QUIC (HTTP/3) on hop 1
                               or behind an HTTP/3 hop, raced with TCP after 0.3 s, the first to
                               connect is used; TCP by ALPN h2 or http/1.1), h1, h2 (fail if not
                               offered) or h3 (QUIC only; hop 1 or behind h3)
      --relay-h3 URL           a separate HTTP/3 endpoint for the preceding --relay, tried first;
                               the --relay URL is its TCP (HTTP/2) fallback
      --cacert FILE            PEM CA file to verify origin certificates (default: system store)
      --match-domain D         relay only D and its subdomains (repeatable; default: everything)
      --exclude-domain D       never relay D and its subdomains (repeatable; wins over match)
      --connect-timeout SECS   time to build the relay chain (default 15)
      --max-time SECS          time limit for the whole transfer, redirects included (default \(maximumTimeDefault))
      --idle-timeout SECS      fail when no byte arrives for SECS (default 30), naming the origin
                               and the hops it came through
      --origin-protocol P      how https origins are spoken to: auto (default: HTTP/3 to an origin
                               that announced it earlier in the run with Alt-Svc, or in an HTTPS
                               DNS record from the encrypted resolver, else TCP), h3 (QUIC,
                               direct or inside CONNECT-UDP through HTTP/3 relays; TCP behind a
                               relay that cannot carry UDP) or tcp
      --profile FILE           take relays and domains from a com.apple.relay.managed profile
                               (.mobileconfig: XML, binary or CMS-signed); not with --relay
      --profile-cacert FILE    PEM CA file to check a signed profile's signer (default: system)
      --resolve HOST:PORT:ADDR use ADDR for HOST:PORT when it is reached directly (not relayed)
      --ohttp-relay URL        send requests as Oblivious HTTP (RFC 9458) to this relay resource
                               (e.g. https://relay.example/ohttp); with --match-domain, only those
                               hosts; --relay options then form the chain that reaches the relay
      --ohttp-keys FILE|URL    the gateway's key configuration (application/ohttp-keys), from a
                               file or fetched from a URL (e.g. https://gw/.well-known/ohttp-gateway):
                               through the --relay chain, or without one only from the OHTTP
                               relay's own host (it sees your address anyway)
    \(NameResolutionOptions.help)
    """
    }

    /// The --direct line, first among the relay options of the commands that take it.
    private static let directHelp = """
      --direct                 connect to origins without a relay (each sees your address); a
                               command given no --relay, --profile or --ohttp-relay uses the
                               installed profiles (relayfetch profile status), or refuses to
                               run without them or --direct

    """

    struct PendingHop {
        var url: URL
        var headers: [String: String] = [:]
        /// --relay-token-oauth: the scenario of the identity provider that issues its token.
        var tokenScenario: OAuthScenario?
        /// --relay-privacy-pass and --relay-privacy-pass-oauth: its issuer and attestation.
        var privacyPass: PrivacyPass?
        var caFile: String?
        var pins: [Data] = []
        var relayProtocol: RelayProtocol = .automatic
        var http3URL: URL?

        struct PrivacyPass {
            var issuer: URL
            var attestationScenario: OAuthScenario?
        }
    }

    private var hops: [PendingHop] = []
    var originCAFile: String?
    var matchDomains: [String] = []
    var excludedDomains: [String] = []
    var connectTimeout: Double?
    var maximumTime: Double?
    var idleTimeout: Double?
    var originProtocol: Session.Configuration.OriginProtocol?
    var profilePaths: [String] = []
    /// Whether `--profile` may be repeated (crawl: each profile is a relay chain of the pool).
    var allowsSeveralProfiles = false
    var profileCAFile: String?
    var directAddresses: [String: String] = [:]
    var ohttpRelay: URL?
    var ohttpKeys: String?
    var nameResolution = NameResolutionOptions()
    /// Whether the command takes --direct (crawl never connects directly), and whether it was given.
    var allowsDirect = false
    private(set) var direct = false
    /// The installed profiles `requireRelays` found for a command given no relay options.
    /// Set by `requireRelays` (RelayOptions+ManagedDefault.swift), nowhere else.
    var managedDefault: ManagedDefaultProfiles?
    /// -v: report each Privacy Pass token issued for a hop.
    var tracesPrivacyPass = false

    /// Consumes the current option if it is a relay option; returns false otherwise.
    mutating func parse(_ scanner: inout ArgumentScanner) throws -> Bool {
        switch scanner.current {
        case "--direct":
            guard allowsDirect else { return false }
            direct = true
        case "--relay":
            let text = try scanner.value()
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), url.host?.isEmpty == false else {
                throw UsageError("--relay needs a URL such as https://relay.example:443, not \"\(text)\"")
            }
            guard ["https", "http", "socks5"].contains(scheme) else {
                throw UsageError("--relay \(text): unsupported relay scheme \"\(scheme)\" (use https://, http:// or socks5://)")
            }
            hops.append(PendingHop(url: url.withLowercasedHost))
        case "--relay-header":
            let text = try scanner.value()
            let hop = try hopIndex(for: "--relay-header")
            let (name, value) = try Self.headerField(text)
            hops[hop].headers[name] = value
        case "--relay-token-oauth":
            let path = try scanner.value()
            let hop = try hopIndex(for: "--relay-token-oauth")
            try Self.requireReadable(path, option: "--relay-token-oauth")
            hops[hop].tokenScenario = try Self.tokenScenario(path, option: "--relay-token-oauth")
        case "--relay-privacy-pass":
            let text = try scanner.value()
            let hop = try hopIndex(for: "--relay-privacy-pass")
            let issuer = try Self.privacyPassIssuer(text)
            hops[hop].privacyPass = .init(issuer: issuer, attestationScenario: hops[hop].privacyPass?.attestationScenario)
        case "--relay-privacy-pass-oauth":
            let path = try scanner.value()
            let hop = try hopIndex(for: "--relay-privacy-pass-oauth")
            guard hops[hop].privacyPass != nil else { throw UsageError("--relay-privacy-pass-oauth must follow the --relay-privacy-pass it attests") }
            try Self.requireReadable(path, option: "--relay-privacy-pass-oauth")
            hops[hop].privacyPass?.attestationScenario = try Self.tokenScenario(path, option: "--relay-privacy-pass-oauth")
        case "--relay-cacert":
            let path = try scanner.value()
            let hop = try hopIndex(for: "--relay-cacert")
            try Self.requireReadable(path, option: "--relay-cacert")
            hops[hop].caFile = path
        case "--relay-pin":
            let text = try scanner.value()
            let hop = try hopIndex(for: "--relay-pin")
            let base64 = text.hasPrefix("sha256//") ? String(text.dropFirst(8)) : text
            guard let digest = Data(base64Encoded: base64), digest.count == 32 else {
                throw UsageError("--relay-pin needs sha256//BASE64 of a 32-byte SHA-256 digest, not \"\(text)\"")
            }
            hops[hop].pins.append(digest)
        case "--relay-protocol":
            let text = try scanner.value()
            let hop = try hopIndex(for: "--relay-protocol")
            // SOCKS5 is chosen by the socks5:// scheme, never for an http(s) relay.
            guard let value = RelayProtocol(rawValue: text.lowercased()), value != .socks5 else {
                throw UsageError("--relay-protocol must be auto, h1, h2 or h3, not \"\(text)\"")
            }
            hops[hop].relayProtocol = value
        case "--relay-h3":
            let text = try scanner.value()
            let hop = try hopIndex(for: "--relay-h3")
            guard let url = URL(string: text), url.scheme?.lowercased() == "https", url.host?.isEmpty == false else {
                throw UsageError("--relay-h3 needs an https URL such as https://relay.example:443, not \"\(text)\"")
            }
            hops[hop].http3URL = url.withLowercasedHost
        case "--cacert":
            let path = try scanner.value()
            try Self.requireReadable(path, option: "--cacert")
            originCAFile = path
        case "--match-domain": matchDomains.append(try scanner.value())
        case "--exclude-domain": excludedDomains.append(try scanner.value())
        case "--connect-timeout": connectTimeout = try scanner.seconds()
        case "--max-time": maximumTime = try scanner.seconds()
        case "--idle-timeout": idleTimeout = try scanner.seconds()
        case "--origin-protocol":
            let text = try scanner.value()
            guard let value = Session.Configuration.OriginProtocol(rawValue: text.lowercased()) else {
                throw UsageError("--origin-protocol must be auto, h3 or tcp, not \"\(text)\"")
            }
            originProtocol = value
        case "--profile":
            let path = try scanner.value()
            try Self.requireReadable(path, option: "--profile")
            guard profilePaths.isEmpty || allowsSeveralProfiles else {
                throw UsageError("--profile is given once here (relayfetch crawl takes several, one relay chain each)")
            }
            profilePaths.append(path)
        case "--profile-cacert":
            let path = try scanner.value()
            try Self.requireReadable(path, option: "--profile-cacert")
            profileCAFile = path
        case "--ohttp-relay":
            let text = try scanner.value()
            guard let url = URL(string: text), url.scheme?.lowercased() == "https", url.host?.isEmpty == false else {
                throw UsageError("--ohttp-relay needs an https URL such as https://relay.example/ohttp, not \"\(text)\"")
            }
            ohttpRelay = url.withLowercasedHost
        case "--ohttp-keys":
            let text = try scanner.value()
            if !(text.hasPrefix("https://") || text.hasPrefix("http://")) { try Self.requireReadable(text, option: "--ohttp-keys") }
            ohttpKeys = text
        case "--resolve":
            let text = try scanner.value()
            let parts = text.split(separator: ":", maxSplits: 2).map(String.init)
            guard parts.count == 3, !parts[0].isEmpty, let port = Int(parts[1]), (1...65535).contains(port), !parts[2].isEmpty else {
                throw UsageError("--resolve needs HOST:PORT:ADDRESS, not \"\(text)\"")
            }
            directAddresses["\(parts[0].lowercased()):\(port)"] = parts[2]
        default: return try nameResolution.parse(&scanner)
        }
        return true
    }

    /// The --relay that `option` (one of the per-relay options) applies to: the last one, unless
    /// it is a socks5:// relay, which has no TLS, no header fields and only one protocol.
    private func hopIndex(for option: String) throws -> Int {
        guard let last = hops.indices.last else { throw UsageError("\(option) must follow the --relay it applies to") }
        guard hops[last].url.scheme?.lowercased() != "socks5" else {
            throw UsageError("\(option) applies to https:// and http:// relays: a socks5:// relay has no TLS, header fields or protocol choice")
        }
        return last
    }

    /// Whether these options name relays (hops, a profile or an OHTTP relay) rather than none.
    var namesRelays: Bool { !hops.isEmpty || !profilePaths.isEmpty || ohttpRelay != nil }

    /// One set of options per profile named (each alone, with everything else these have), or
    /// these options when they name one profile or none.
    var splitByProfile: [RelayOptions] {
        guard profilePaths.count > 1 else { return [self] }
        return profilePaths.map { path in
            var single = self
            single.profilePaths = [path]
            return single
        }
    }

    /// Refuses combinations that make no sense; call after parsing.
    func validate() throws {
        try nameResolution.validate()
        if let hop = hops.first(where: { $0.http3URL != nil && $0.relayProtocol != .automatic }) {
            throw UsageError("--relay-h3 \(hop.http3URL!.absoluteString) needs --relay-protocol auto for its --relay")
        }
        if (ohttpRelay == nil) != (ohttpKeys == nil) {
            throw UsageError("--ohttp-relay and --ohttp-keys go together")
        }
        if let ohttpRelay, let ohttpKeys, hops.isEmpty, let keysURL = URL(string: ohttpKeys), keysURL.scheme?.hasPrefix("http") == true,
           keysURL.originKey != ohttpRelay.originKey {
            throw UsageError("--ohttp-keys \(ohttpKeys) would be fetched directly, telling \(keysURL.host ?? "its host") your address: "
                             + "add a --relay chain to fetch it through, fetch it from the OHTTP relay's own host, or give a file")
        }
        if ohttpRelay != nil && !profilePaths.isEmpty { throw UsageError("use either --profile or --ohttp-relay, not both") }
        if !profilePaths.isEmpty && !hops.isEmpty {
            throw UsageError("use either --profile or --relay, not both")
        }
        if !profilePaths.isEmpty && !(matchDomains.isEmpty && excludedDomains.isEmpty) {
            throw UsageError("--match-domain and --exclude-domain apply to --relay; a profile has its own domains")
        }
    }

    /// The session configuration these options describe; loads the profile, if any, and reports
    /// its warnings through `warn`.
    func sessionConfiguration(warn: @escaping @Sendable (String) -> Void = { _ in }) async throws -> Session.Configuration {
        var configuration = Session.Configuration.ephemeral
        // Per proxy configuration, the token scenario of each hop (by 0-based index) that has one.
        var tokenScenarios: [[Int: OAuthScenario]] = []
        // Per proxy configuration, the Privacy Pass issuer of each hop (by 0-based index) that has one.
        var issuers: [[Int: PendingHop.PrivacyPass]] = []
        for profilePath in profilePaths {
            let profile = try ManagedRelayProfileReader.read(contentsOf: URL(fileURLWithPath: profilePath), signerCAFile: profileCAFile)
            for warning in profile.warnings { warn("relayfetch: warning: \(profilePath): \(warning)") }
            configuration.proxyConfigurations += profile.proxyConfigurations
            tokenScenarios += try profile.relayPayloads.map { try Self.tokenScenarios(of: $0, profilePath: profilePath) }
            issuers += try profile.relayPayloads.map { try Self.privacyPassIssuers(of: $0, profilePath: profilePath) }
        }
        if let managedDefault { configuration.proxyConfigurations = managedDefault.proxyConfigurations }
        configuration.directHostAddresses = directAddresses
        configuration.privacyContext = try nameResolution.privacyContext()
        if !hops.isEmpty {
            var proxy = ProxyConfiguration(relayHops: hops.map {
                var hop = ProxyConfiguration.RelayHop(http3RelayEndpoint: $0.http3URL, http2RelayEndpoint: $0.url,
                                                      tlsOptions: .init(certificateAuthorityFile: $0.caFile, pinnedPublicKeySHA256: $0.pins),
                                                      additionalHTTPHeaderFields: $0.headers)
                hop.relayProtocol = $0.relayProtocol
                return hop
            })
            proxy.matchDomains = matchDomains
            proxy.excludedDomains = excludedDomains
            configuration.proxyConfigurations = [proxy]
            tokenScenarios = [Dictionary(uniqueKeysWithValues: hops.enumerated().compactMap { index, hop in hop.tokenScenario.map { (index, $0) } })]
            issuers = [Dictionary(uniqueKeysWithValues: hops.enumerated().compactMap { index, hop in hop.privacyPass.map { (index, $0) } })]
        }
        configuration.originCertificateAuthorityFile = originCAFile
        if let connectTimeout { configuration.connectTimeout = connectTimeout }
        if let maximumTime { configuration.requestTimeout = maximumTime }
        if let idleTimeout { configuration.idleTimeout = idleTimeout }
        Self.attachTokenKeepers(tokenScenarios, to: &configuration)
        Self.attachPrivacyPass(issuers, to: &configuration, trace: tracesPrivacyPass, report: warn)
        if let originProtocol { configuration.originProtocol = originProtocol }
        if let ohttpRelay, let ohttpKeys {
            // The --relay chain (if any) now carries the POSTs to the OHTTP relay, and the key fetch.
            let chain = configuration.proxyConfigurations.first?.relayHops ?? []
            var keyConfiguration = configuration
            keyConfiguration.proxyConfigurations = chain.isEmpty ? [] : [ProxyConfiguration(relayHops: chain)]
            // Without a chain the fetch goes directly to the OHTTP relay's host, and only there:
            // a redirect elsewhere (to the gateway) would reveal the client's address.
            if chain.isEmpty { keyConfiguration.maximumRedirects = 0 }
            let keys = try await Self.loadKeys(ohttpKeys, using: keyConfiguration)
            var root = URLComponents(url: ohttpRelay, resolvingAgainstBaseURL: false)!
            let path = root.path.isEmpty ? "/" : root.path
            root.path = ""
            root.query = nil
            var proxy = ProxyConfiguration(obliviousHTTPRelay: .init(http2RelayEndpoint: root.url!), relayResourcePath: path,
                                           gatewayKeyConfig: keys, matchDomains: matchDomains)
            proxy.relayHops = chain
            proxy.excludedDomains = excludedDomains
            configuration.proxyConfigurations = [proxy]
        }
        return configuration
    }

    /// A session for these options, its configuration changed by `adjusting` (a command's own
    /// settings); on failure, logs one error line and returns nil (exit 1).
    func makeSession(io: CommandIO, adjusting: (inout Session.Configuration) -> Void = { _ in }) async -> Session? {
        do {
            var configuration = try await sessionConfiguration(warn: io.log)
            adjusting(&configuration)
            return try Session(configuration: configuration)
        } catch {
            io.log("relayfetch: error: \(ErrorHint.text(error))")
            return nil
        }
    }

    /// The gateway's keys from a file, or fetched (as application/ohttp-keys) from a URL.
    private static func loadKeys(_ source: String, using configuration: Session.Configuration) async throws -> Data {
        guard let url = URL(string: source), url.scheme?.hasPrefix("http") == true else {
            return try Data(contentsOf: URL(fileURLWithPath: source))
        }
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        let (keys, response) = try await session.data(for: HTTPRequest(url: url, headerFields: [("Accept", "application/ohttp-keys")]))
        guard response.statusCode == 200 else {
            throw FetchError(.oblivious("fetching the gateway's keys from \(source) gave \(response.statusCode)"))
        }
        return keys
    }

    /// Splits "Name: value", refusing names that are not tokens and values with line breaks.
    static func headerField(_ text: String) throws -> (String, String) {
        guard let colon = text.firstIndex(of: ":") else {
            throw UsageError("header \"\(text)\" needs the form 'Name: value'")
        }
        let name = String(text[..<colon]).trimmingCharacters(in: .whitespaces)
        let value = String(text[text.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        // The library checks the same again where a request enters a session; here the message
        // names the option.
        do { _ = try HTTPFields(validating: [(name, value)]) } catch { throw UsageError("-H: \(error)") }
        return (name, value)
    }

    private static func requireReadable(_ path: String, option: String) throws {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw UsageError("\(option) \(path): no such readable file")
        }
    }
}
