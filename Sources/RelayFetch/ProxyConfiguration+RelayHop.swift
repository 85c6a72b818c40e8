import HTTPCore
import Foundation
import RelayTransport

extension ProxyConfiguration {
    /// One relay in a chain, shaped like Apple's `ProxyConfiguration.RelayHop`.
    ///
    /// A hop with an HTTP/3 endpoint is reached over QUIC first (a later hop only behind an
    /// HTTP/3 hop, inside CONNECT-UDP), its HTTP/2 endpoint being the fallback when QUIC cannot
    /// connect; otherwise over TLS for an https:// endpoint (in the clear for http://) with
    /// HTTP/2 or HTTP/1.1 CONNECT as `relayProtocol` says. With `.automatic`, an https://
    /// endpoint alone is tried over QUIC on the same host and port as well (first hop, or
    /// behind an HTTP/3 hop), raced with TCP after `http3FallbackDelay`. A `socks5://` endpoint
    /// is a SOCKS5 hop (RFC 1928, the target's name resolved by the SOCKS server; the URL's user
    /// and password, if any, sent as RFC 1929 credentials), with no TLS and no header fields.
    public struct RelayHop: Sendable, Hashable {
        public var http3RelayEndpoint: URL?
        public var http2RelayEndpoint: URL?
        public var tlsOptions: TLSOptions
        /// Header fields sent to this hop only (e.g. `Proxy-Authorization`); never to the origin
        /// or another hop.
        public var additionalHTTPHeaderFields: [String: String]
        /// The HTTP version spoken to this relay: `.automatic` (HTTP/3 first where QUIC can
        /// reach it, else ALPN h2 or http/1.1, the relay picks), `.http1`, `.http2` (fails if the
        /// relay does not offer it) or `.http3`; a `socks5://` endpoint is spoken to in SOCKS5
        /// (`.automatic` or `.socks5`). Not in Apple's API.
        public var relayProtocol: RelayProtocol = .automatic
        /// A DNS-over-HTTPS resolver reached through the chain up to this relay, as Apple's
        /// `NERelay.dnsOverHTTPSURL`: the names a session resolves for hosts it reaches directly
        /// (excluded hosts, an OHTTP relay) go to it, so the local network never sees them.
        public var dnsOverHTTPSURL: URL?
        /// Where this hop's bearer token comes from when an identity provider issues it: sent as
        /// the hop's `Proxy-Authorization: Bearer ...` (replacing one in
        /// `additionalHTTPHeaderFields`) on its CONNECT only, asked for before each tunnel, and
        /// asked for a fresh one once when the hop answers 407. Not in Apple's API.
        public var relayTokenSource: RelayTokenSource?

        public init(http3RelayEndpoint: URL?, http2RelayEndpoint: URL? = nil, tlsOptions: TLSOptions = TLSOptions(),
                    additionalHTTPHeaderFields: [String: String] = [:]) {
            self.http3RelayEndpoint = http3RelayEndpoint
            self.http2RelayEndpoint = http2RelayEndpoint
            self.tlsOptions = tlsOptions
            self.additionalHTTPHeaderFields = additionalHTTPHeaderFields
        }

        public init(http2RelayEndpoint: URL, tlsOptions: TLSOptions = TLSOptions(),
                    additionalHTTPHeaderFields: [String: String] = [:]) {
            self.init(http3RelayEndpoint: nil, http2RelayEndpoint: http2RelayEndpoint, tlsOptions: tlsOptions,
                      additionalHTTPHeaderFields: additionalHTTPHeaderFields)
        }

        /// The relay's URL as dialled today.
        public var endpointURL: URL? { http2RelayEndpoint ?? http3RelayEndpoint }
    }

    /// How a hop's TLS certificate is trusted.
    public struct TLSOptions: Sendable, Hashable {
        /// PEM file with the CA certificates to trust for this relay; nil means the system store.
        public var certificateAuthorityFile: String?
        /// SHA-256 digests of the relay's SubjectPublicKeyInfo (like Apple's RawPublicKeys); when
        /// set, the relay is trusted if its key matches one, whatever signed its certificate.
        public var pinnedPublicKeySHA256: [Data]
        /// A client certificate to present to the relay (e.g. from a profile's PKCS#12 payload).
        public var clientIdentity: TLSClientIdentity?

        public init(certificateAuthorityFile: String? = nil, pinnedPublicKeySHA256: [Data] = [],
                    clientIdentity: TLSClientIdentity? = nil) {
            self.certificateAuthorityFile = certificateAuthorityFile
            self.pinnedPublicKeySHA256 = pinnedPublicKeySHA256
            self.clientIdentity = clientIdentity
        }
    }
}

extension ProxyConfiguration.RelayHop {
    /// The transport's view of this hop; throws for URLs a relay cannot have. With the automatic
    /// protocol HTTP/3 is tried first: on the HTTP/3 endpoint, with the HTTP/2 endpoint as its
    /// fallback, or (an https hop) on the one endpoint over QUIC and TCP at once.
    func endpoint(index: Int) throws(FetchError) -> RelayEndpoint {
        guard let url = endpointURL else {
            throw FetchError(.invalidRelay(index: index, reason: "the hop has no endpoint URL"))
        }
        let (host, port, scheme) = try Self.parts(of: url, index: index)
        if scheme == "socks5" { return try socksEndpoint(host: host, port: port, url: url, index: index) }
        guard relayProtocol != .socks5 else {
            throw FetchError(.invalidRelay(index: index, reason: "SOCKS5 needs a socks5:// endpoint URL, not \(url.absoluteString)"))
        }
        let secure = scheme == "https"
        // Checked here: they are written into this hop's CONNECT as they are.
        let fields: HTTPFields
        do { fields = try HTTPFields(validating: additionalHTTPHeaderFields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }) } catch {
            throw FetchError(.invalidRelay(index: index, reason: error.description))
        }
        var endpoint = RelayEndpoint(host: host, port: port, usesTLS: secure,
                                     trust: TLSTrust(caFile: tlsOptions.certificateAuthorityFile,
                                                     pinnedPublicKeys: tlsOptions.pinnedPublicKeySHA256.map { [UInt8]($0) },
                                                     clientIdentity: tlsOptions.clientIdentity),
                                     headerFields: fields, relayProtocol: relayProtocol)
        endpoint.tokenSource = relayTokenSource?.reference
        guard relayProtocol == .automatic else { return endpoint }
        if let http3 = http3RelayEndpoint {
            let (quicHost, quicPort, quicScheme) = try Self.parts(of: http3, index: index)
            if quicScheme == "https" {
                // With an HTTP/2 endpoint as well, it is the fallback; without one, HTTP/3 or nothing.
                endpoint.fallback = http2RelayEndpoint == nil ? nil : RelayFallback(host: host, port: port)
                endpoint.host = quicHost
                endpoint.port = quicPort
                endpoint.relayProtocol = .http3
            }
        } else if secure {
            // HTTP/3 first on the hop's own host and port, TCP (h2 or http/1.1) raced after a
            // head start. A later hop's QUIC runs inside CONNECT-UDP through the hop before, so
            // behind a hop that speaks TCP it goes straight to its TCP side.
            endpoint.fallback = RelayFallback(host: host, port: port)
            endpoint.relayProtocol = .http3
        }
        return endpoint
    }

    /// A SOCKS5 hop (a `socks5://` URL): no TLS and no header fields, so neither may be set;
    /// the URL's user and password, when it has them, are its RFC 1929 credentials.
    private func socksEndpoint(host: String, port: UInt16, url: URL, index: Int) throws(FetchError) -> RelayEndpoint {
        let parts = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let credentials = parts?.user.map { RelayCredentials(username: $0, password: parts?.password ?? "") }
        let endpoint = RelayEndpoint(host: host, port: port, usesTLS: false, relayProtocol: .socks5, credentials: credentials)
        let problem = relayProtocol != .automatic && relayProtocol != .socks5 ? "is spoken to in SOCKS5, not \(relayProtocol.rawValue)"
            : !additionalHTTPHeaderFields.isEmpty || relayTokenSource != nil ? "has no header fields"
            : tlsOptions != ProxyConfiguration.TLSOptions() ? "has no TLS, so no TLS options"
            : http2RelayEndpoint != nil && http3RelayEndpoint != nil ? "has no HTTP/3 endpoint" : nil
        // Named by host and port: the URL may carry a password.
        if let problem { throw FetchError(.invalidRelay(index: index, reason: "a SOCKS5 relay \(problem) (\(endpoint.authority))")) }
        return endpoint
    }

    /// The URL's host (IPv6 unbracketed), port (the scheme's default when absent) and scheme.
    private static func parts(of url: URL, index: Int) throws(FetchError) -> (String, UInt16, String) {
        let scheme = url.scheme?.lowercased() ?? ""
        let defaultPorts = ["https": 443, "http": 80, "socks5": 1080]
        guard let defaultPort = defaultPorts[scheme] else {
            throw FetchError(.invalidRelay(index: index, reason: "unsupported relay scheme \"\(scheme)\" in \(url.absoluteString) (use https://, http:// or socks5://)"))
        }
        guard let host = url.host, !host.isEmpty else {
            throw FetchError(.invalidRelay(index: index, reason: "no host in \(url.absoluteString)"))
        }
        let port = url.port ?? defaultPort
        guard (1...65535).contains(port) else {
            throw FetchError(.invalidRelay(index: index, reason: "bad port in \(url.absoluteString)"))
        }
        return (unbracketed(host), UInt16(port), scheme)
    }

    private static func unbracketed(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }
}
