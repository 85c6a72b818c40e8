import HTTPCore
import Foundation
import Locking
import RelayTransport

/// A private browsing session: its own relay tunnels, connections, TLS state and data store,
/// shared with no other session and gone when it ends.
public final class Session: Sendable {
    /// The configuration exactly as given: a session made from it gets a store of its own
    /// unless the configuration names one (use `dataStore` for this session's store).
    public let configuration: Configuration
    /// Where this session keeps cookies and cached responses: the configuration's store if it
    /// named one (shared on purpose), else a fresh store of this session's own.
    public let dataStore: WebsiteDataStore
    let engine: CurlEngine
    let opener: TunnelOpener
    /// False for a session made by `sharingConnections(dataStore:)`: the connections are the
    /// other session's, which alone ends them.
    private let ownsConnections: Bool
    /// The privacy context's resolver for this session (nil: the system resolver).
    let nameResolver: SessionNameResolver?
    /// A relay's own DoH resolver (`RelayHop.dnsOverHTTPSURL`), reached through the chain, for
    /// hosts this session reaches directly; nil when no hop names one.
    var directNameResolver: SessionNameResolver? { directResolver.withLock { $0 } }
    /// Set once, by `init` (which needs a method of the session to make it).
    private let directResolver = Locked<SessionNameResolver?>(nil)
    /// Origins' HTTP/3 alternatives seen in this session (shared with sessions sharing its connections).
    let originAltServices: OriginAltServices
    /// Which relay configuration carries each host (with `RelayChainPolicy.failover`, this
    /// session's pool of chains, shared with sessions sharing its connections).
    let chains: RelayChainSelector

    /// Starts the session's threads; throws if its local tunnel listener cannot be created.
    public init(configuration: Configuration = .ephemeral) throws {
        self.configuration = configuration
        dataStore = configuration.dataStore ?? .nonPersistent()
        let engine = CurlEngine(maximumConnectionsPerHost: configuration.maximumConnectionsPerHost,
                                maximumConnections: configuration.maximumConnections)
        self.engine = engine
        ownsConnections = true
        originAltServices = OriginAltServices()
        chains = RelayChainSelector(configuration)
        var nameResolver: SessionNameResolver?
        do {
            opener = try TunnelOpener(connectTimeout: configuration.connectTimeout, idleTimeout: configuration.relayIdleTimeout,
                                       http3HeadStart: configuration.http3FallbackDelay,
                                       proxyChallengeResponder: configuration.proxyChallengeResponder) { loop throws(FetchError) in
                nameResolver = try Self.makeNameResolver(configuration, engine: engine, loop: loop)
                return nameResolver
            }
        } catch {
            engine.shutdown()
            throw error
        }
        self.nameResolver = nameResolver
        let relaysOwn = try relayResolver()
        directResolver.withLock { $0 = relaysOwn }
    }

    /// Shares `session`'s resolvers (and their cache) with its connections.
    private init(sharing session: Session, dataStore: WebsiteDataStore) {
        var configuration = session.configuration
        configuration.dataStore = dataStore
        self.configuration = configuration
        self.dataStore = dataStore
        opener = session.opener
        engine = session.engine
        ownsConnections = false
        originAltServices = session.originAltServices
        chains = session.chains
        nameResolver = session.nameResolver
        let shared = session.directNameResolver
        directResolver.withLock { $0 = shared }
    }

    /// A session with this one's configuration, relay tunnels and connections (origin
    /// connections included, kept alive between requests) but `dataStore` for cookies and
    /// cached responses: a crawler's fresh store per page or per host, without a new relay
    /// connection for each. It works while this session does; invalidating it ends nothing.
    public func sharingConnections(dataStore: WebsiteDataStore) -> Session {
        Session(sharing: self, dataStore: dataStore)
    }

    deinit { invalidate() }

    /// Ends the session: closes its connections and tunnels, and returns once its threads have
    /// (waiting up to 5 s for each), so a process may exit right after without a C library's exit
    /// handler running into them; it cannot fetch afterwards. Called on one of those threads (a
    /// last reference dropped there), it returns at once. A session sharing another's
    /// connections leaves them to that one.
    public func invalidate() {
        guard ownsConnections else { return }
        engine.shutdown()
        opener.shutdown()
        engine.waitUntilEnded(timeout: 5)
        opener.loop.waitUntilEnded(timeout: 5)
    }

    /// Receives each relay tunnel's per-hop timings as it opens (for verbose output).
    public func onTunnelOpen(_ handler: @escaping @Sendable ([RelayHopTiming]) -> Void) {
        opener.loop.execute { [opener] in opener.onTunnelOpen = { handler($0.map(RelayHopTiming.init)) } }
    }

    /// How many connections this session has opened to each relay hop (1 = nearest the client).
    /// HTTP/2 hops multiplex, so many tunnels share one connection.
    public func relayConnectionsOpened() async -> [Int: Int] {
        await opener.connectionsOpened()
    }

    /// Fetches `url` with GET; returns the body and the response after redirects.
    public func data(from url: URL) async throws -> (Data, HTTPResponse) {
        try await data(for: HTTPRequest(url: url))
    }

    /// Sends `request`, following redirects as configured. `onBodyChunk` receives the final
    /// response's URL and body piece by piece while it arrives (for streaming parsers), on
    /// another thread. A host with capitals is taken in lower case (so is the response's URL).
    /// Throws `HTTPFieldError` before anything is sent when a header field could inject another.
    public func data(for request: HTTPRequest, onBodyChunk: (@Sendable (URL, Data) -> Void)? = nil) async throws -> (Data, HTTPResponse) {
        var current = try Self.entering(request)
        var chain = RedirectChain(current, configuration: configuration)
        while true {
            let (body, response) = try await chain.within { try await exchange(chain.timed(current), onBodyChunk: onBodyChunk) }
            guard let next = try chain.next(after: response, to: current) else {
                var response = response
                response.redirectCount = chain.followed
                return (body, response)
            }
            current = try Self.entering(next)
        }
    }

    /// `request` as it enters the session, first or after a redirect: its host in lower case,
    /// the one spelling routing, domain matching, pinning, resolution and the relays see, and
    /// its header fields checked: libcurl would send a CR LF in a value as it is, a field of
    /// the caller's choosing (or, from a page's form, of a site's).
    static func entering(_ request: HTTPRequest) throws(HTTPFieldError) -> HTTPRequest {
        try request.headerFields.validate()
        var request = request
        request.url = request.url.withLowercasedHost
        return request
    }

    /// One exchange, routed by the host's relay configuration, through the session's store:
    /// cookies go out and come back, fresh responses come from the cache, stale ones revalidate.
    func exchange(_ original: HTTPRequest, onBodyChunk: (@Sendable (URL, Data) -> Void)?) async throws -> (Data, HTTPResponse) {
        await learnServiceBinding(for: original.url)
        return try await failingOver(original, usedChain: { !$0.1.fromCache }) { route in
            try await self.exchange(original, route: route, onBodyChunk: onBodyChunk)
        }
    }

    private func exchange(_ original: HTTPRequest, route: any Route, onBodyChunk: (@Sendable (URL, Data) -> Void)?) async throws -> (Data, HTTPResponse) {
        let store = dataStore
        var request = prepared(original)
        let lookup = store.httpCache.lookup(request)
        if case .fresh(let entry) = lookup {
            var response = entry.response
            response.fromCache = true
            response.timings = HTTPTimings()
            onBodyChunk?(request.url, entry.body)
            return (entry.body, response)
        }
        if case .revalidate(_, let conditions) = lookup { request.headerFields += conditions }
        let (body, response) = try await route.exchange(request, in: self, onBodyChunk: onBodyChunk)
        keepCookies(of: response, for: request)
        if response.statusCode == 304, case .revalidate(let entry, _) = lookup {
            var refreshed = store.httpCache.refresh(entry, with: response, for: request).response
            refreshed.fromCache = true
            onBodyChunk?(request.url, entry.body)
            return (entry.body, refreshed)
        }
        if !response.bodySkipped { store.httpCache.store(request, response: response, body: body) }
        return (body, response)
    }

    /// `original` as it goes out: `Referer` by its policy, the jar's cookies unless it has its own.
    func prepared(_ original: HTTPRequest) -> HTTPRequest {
        var request = original
        if let referrer = request.referrer {
            request.headerFields.removeAll { $0.name.lowercased() == "referer" }
            if let value = request.referrerPolicy.referer(from: referrer, to: request.url) { request.headerFields.append(("Referer", value)) }
        }
        if request.httpShouldHandleCookies, !request.headerFields.contains(where: { $0.name.lowercased() == "cookie" }),
           let cookies = dataStore.cookieJar.cookieHeader(for: request.url, siteForCookies: request.siteForCookies) {
            request.headerFields.append(("Cookie", cookies))
        }
        return request
    }

    /// Stores the response's Set-Cookie fields, when the request uses the jar.
    /// Also notes the origin's HTTP/3 alternative (`Alt-Svc`), which every response passes here.
    func keepCookies(of response: HTTPResponse, for request: HTTPRequest) {
        originAltServices.note(response)
        guard request.httpShouldHandleCookies else { return }
        let setCookies = response.headerFields.filter { $0.name.lowercased() == "set-cookie" }.map(\.value)
        dataStore.cookieJar.store(setCookieValues: setCookies, from: response.url)
    }

    /// An idle timeout through relays, with who stalled: each HTTP/2 hop is asked for a PING;
    /// the first that does not answer stalled, and if all answer, the origin did.
    func diagnosed(_ error: FetchError, route: any CurlRoute) async -> FetchError {
        guard case .idleTimeout(let seconds, let peer, let names, .none) = error.detail,
              let alive = await route.probeHops(in: self, timeout: min(2, seconds)) else { return error }
        let stalled: String
        if let silent = alive.firstIndex(of: false) {
            stalled = "hop \(silent + 1) (\(names[silent])) stalled: it did not answer an HTTP/2 PING"
        } else if !alive.isEmpty, alive.allSatisfy({ $0 == true }) {
            stalled = "most likely the origin stalled: every relay answered an HTTP/2 PING"
        } else {
            let unknown = alive.indices.filter { alive[$0] == nil }.map { "hop \($0 + 1)" }.joined(separator: ", ")
            stalled = "the origin or \(unknown) stalled (only HTTP/2 hops can be probed)"
        }
        return FetchError(.idleTimeout(seconds: seconds, peer: peer, route: names, stalled: stalled))
    }

    /// The route for `url`: the configuration that carries its host (`chains`), else direct.
    func route(for url: URL) throws(FetchError) -> any Route { try chainRoute(for: url).route }

    /// The route for `url`, and the index of the relay configuration it goes through (nil: direct).
    func chainRoute(for url: URL) throws(FetchError) -> (route: any Route, chain: Int?) {
        let scheme = url.scheme?.lowercased() ?? ""
        guard let host = url.host, !host.isEmpty else { throw FetchError(.invalidURL(url.absoluteString)) }
        guard scheme == "https" || scheme == "http" else { throw FetchError(.unsupportedScheme(scheme)) }
        // Foundation's URL takes any port number ("http://h:99999/"), as a redirect or a page may give it.
        guard let port = UInt16(exactly: url.portOrDefault) else { throw FetchError(.invalidURL(url.absoluteString)) }
        let bareHost = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        guard let (chain, proxy) = try chains.configuration(forHost: bareHost) else {
            guard configuration.allowsDirectConnections else { throw FetchError(.notRelayed(host: bareHost)) }
            return (http3OriginRoute(url: url, host: bareHost, port: port, hops: [], tcp: DirectRoute()) ?? DirectRoute(), nil)
        }
        if let oblivious = proxy.obliviousHTTP {
            return (try obliviousRoute(oblivious, chain: proxy.relayHops), chain)
        }
        guard !proxy.relayHops.isEmpty else {
            throw FetchError(.invalidRelay(index: 0, reason: "a relay configuration covers \(bareHost) but has no hops"))
        }
        let hops = try endpoints(proxy.relayHops), target = TunnelTarget(host: bareHost, port: port)
        let tcp = Routes.through(hops, to: target, opener: opener)
        return (http3OriginRoute(url: url, host: bareHost, port: port, hops: hops, tcp: tcp) ?? tcp, chain)
    }

    func endpoints(_ hops: [ProxyConfiguration.RelayHop]) throws(FetchError) -> [RelayEndpoint] {
        var endpoints: [RelayEndpoint] = []
        for (offset, hop) in hops.enumerated() { endpoints.append(try hop.endpoint(index: offset + 1)) }
        return endpoints
    }

    /// The OHTTP relay's resource URL, reached directly or through `chain`.
    private func obliviousRoute(_ oblivious: ObliviousHTTPRelay, chain: [ProxyConfiguration.RelayHop]) throws(FetchError) -> any Route {
        let relay = try oblivious.relay.endpoint(index: chain.count + 1)
        let path = oblivious.relayResourcePath.hasPrefix("/") ? oblivious.relayResourcePath : "/" + oblivious.relayResourcePath
        guard let base = oblivious.relay.endpointURL, var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else {
            throw FetchError(.oblivious("the relay has no endpoint URL"))
        }
        components.path = path
        guard let relayURL = components.url else { throw FetchError(.oblivious("bad relay resource path \(oblivious.relayResourcePath)")) }
        let carrier: any CurlRoute = chain.isEmpty ? DirectRoute()
            : Routes.through(try endpoints(chain), to: TunnelTarget(host: relay.host, port: relay.port), opener: opener)
        return ObliviousRoute(relayURL: relayURL, keyConfig: try OHTTPKeyConfigRef.parse(oblivious.gatewayKeyConfig),
                              relayHeaderFields: relay.headerFields, carrier: carrier)
    }
}
