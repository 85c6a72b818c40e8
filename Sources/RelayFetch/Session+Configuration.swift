import Foundation
import RelayTransport

extension Session {
    /// How a session fetches: which relays, which store, which trust and limits.
    public struct Configuration: Sendable {
        /// Relay configurations; the first that covers a host carries it, or with
        /// `relayChainPolicy` `.failover` each is a chain of a pool. A host no configuration
        /// covers goes direct, unless `allowsDirectConnections` is false.
        public var proxyConfigurations: [ProxyConfiguration]
        /// How a host's configuration is chosen among those that cover it (`RelayChainPolicy`).
        public var relayChainPolicy: RelayChainPolicy = .firstMatch
        /// False to refuse (`FetchError` `.notRelayed`) every request to a host no relay
        /// configuration covers instead of connecting to it directly: a crawler following links
        /// and page requisites to any host sets it.
        public var allowsDirectConnections = true
        /// The store for cookies and cached responses. nil (the default) gives every `Session`
        /// made from this configuration a fresh store of its own; set a store to share it between
        /// sessions on purpose, as `WKWebsiteDataStore` instances are shared.
        public var dataStore: WebsiteDataStore?
        /// PEM CA file for origin certificates; nil means the system store.
        public var originCertificateAuthorityFile: String?
        /// Seconds to build the relay chain (or connect directly).
        public var connectTimeout: Double = 15
        /// Seconds an HTTP/2 relay connection with no open tunnel stays open.
        public var relayIdleTimeout: Double = 60
        /// Seconds QUIC gets to reach a relay's HTTP/3 endpoint before its TCP (HTTP/2) endpoint
        /// is tried too (Happy Eyeballs); the first tunnel up is used, and a session remembers
        /// which relays needed TCP. When QUIC fails outright, TCP starts at once. With
        /// `originProtocol` `.automatic`, an origin's QUIC gets the same head start before TCP
        /// races it (the first connection up carries the request).
        public var http3FallbackDelay: Double = 0.3
        /// Seconds for a whole request, redirects included (curl's `--max-time`).
        public var requestTimeout: Double = 120
        /// Seconds a transfer may go without receiving a byte before it fails, naming the origin
        /// and the hops it came through.
        public var idleTimeout: Double = 30
        /// Redirects followed before giving up; 0 turns following off.
        public var maximumRedirects: Int = 20
        /// Largest body accepted, in bytes.
        public var maximumResponseSize: Int = 50 << 20
        public var userAgent: String = "relayfetch/0.1"
        /// Connections open at once to one origin host, as browsers' six per host: further
        /// requests wait for a free (or multiplexed HTTP/2) connection instead of opening
        /// another relay tunnel.
        public var maximumConnectionsPerHost: Int = 6
        /// Connections open at once over all hosts; idle ones are kept for reuse up to this many.
        public var maximumConnections: Int = 64
        /// Fixed addresses for hosts reached directly (not through a relay), like curl's
        /// `--resolve`: "host:port" -> address. Relayed names are never resolved locally, so
        /// entries for them are ignored. Host names are compared in lower case.
        public var directHostAddresses: [String: String] = [:]
        /// How the names relayfetch resolves itself are resolved (encrypted DNS); nil: the system
        /// resolver. Relayed names are never resolved locally either way.
        public var privacyContext: PrivacyContext?
        /// Answers a relay's 407 (HTTP/1.1, HTTP/2 or HTTP/3 CONNECT) with a fresh credential (a
        /// Privacy Pass token) for one retry of that tunnel; nil: a 407 fails the fetch. Package access until the per-hop API.
        package var proxyChallengeResponder: ProxyChallengeResponder?
        /// Whether https origins are spoken to over HTTP/3 (QUIC) or TCP (`OriginProtocol`).
        public var originProtocol: OriginProtocol = .automatic

        public init(proxyConfigurations: [ProxyConfiguration] = [], dataStore: WebsiteDataStore? = nil) {
            self.proxyConfigurations = proxyConfigurations
            self.dataStore = dataStore
        }

        /// An ephemeral configuration: a fresh in-memory store per session, no relays yet.
        public static var ephemeral: Configuration { Configuration() }

        /// The `directHostAddresses` entry for `host` (lower case, as the session takes every
        /// host) and `port`, whatever the case of its key: the one lookup both the pinning and
        /// the resolver's "nothing to resolve" use, so they cannot disagree.
        func directHostAddress(host: String, port: Int) -> String? {
            let key = "\(host.lowercased()):\(port)"
            return directHostAddresses[key] ?? directHostAddresses.first { $0.key.lowercased() == key }?.value
        }
    }
}
