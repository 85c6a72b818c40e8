import Foundation
import RelayTransport

/// A private browsing session: its own relay tunnels, connections, TLS state and data store,
/// shared with no other session and gone when it ends.
public final class Session: @unchecked Sendable {
    /// The configuration exactly as given: a session made from it gets a store of its own
    /// unless the configuration names one (use `dataStore` for this session's store).
    public let configuration: Configuration
    /// Where this session keeps cookies and cached responses: the configuration's store if it
    /// named one (shared on purpose), else a fresh store of this session's own.
    public let dataStore: WebsiteDataStore
    let engine: CurlEngine
    private let opener: TunnelOpener

    /// Starts the session's threads; throws if its local tunnel listener cannot be created.
    public init(configuration: Configuration = .ephemeral) throws {
        self.configuration = configuration
        dataStore = configuration.dataStore ?? .nonPersistent()
        opener = try TunnelOpener(connectTimeout: configuration.connectTimeout, idleTimeout: configuration.relayIdleTimeout,
                                   http3AttemptTimeout: configuration.http3FallbackDelay)
        engine = CurlEngine(maximumConnectionsPerHost: configuration.maximumConnectionsPerHost,
                            maximumConnections: configuration.maximumConnections)
    }

    deinit { invalidate() }

    /// Ends the session: closes its connections and tunnels; it cannot fetch afterwards.
    public func invalidate() {
        engine.shutdown()
        opener.shutdown()
    }

    /// Receives each relay tunnel's per-hop timings as it opens (for verbose output).
    public func onTunnelOpen(_ handler: @escaping @Sendable ([HopReport]) -> Void) {
        opener.loop.execute { [opener] in opener.onTunnelOpen = handler }
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
    /// another thread.
    public func data(for request: HTTPRequest, onBodyChunk: (@Sendable (URL, Data) -> Void)? = nil) async throws -> (Data, HTTPResponse) {
        var chain = RedirectChain(request, configuration: configuration)
        var current = request
        while true {
            let (body, response) = try await chain.within { try await exchange(chain.timed(current), onBodyChunk: onBodyChunk) }
            guard let next = try chain.next(after: response, to: current) else { return (body, response) }
            current = next
        }
    }

    /// One exchange, routed by the host's relay configuration, through the session's store:
    /// cookies go out and come back, fresh responses come from the cache, stale ones revalidate.
    func exchange(_ original: HTTPRequest, onBodyChunk: (@Sendable (URL, Data) -> Void)?) async throws -> (Data, HTTPResponse) {
        let route = try route(for: original.url)
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
        let (body, response): (Data, HTTPResponse)
        if case .oblivious(let oblivious) = route {
            let (post, context) = try ObliviousExchange.encapsulate(request, route: oblivious)
            let (sealed, relayResponse) = try await engine.perform(try CurlTransfer(request: post, route: oblivious.carrier, configuration: configuration))
            (body, response) = try ObliviousExchange.decapsulate(sealed, relayResponse: relayResponse, context: context, for: request, route: route)
            onBodyChunk?(request.url, body)
        } else {
            let transfer = try CurlTransfer(request: request, route: route, configuration: configuration)
            transfer.onBodyChunk = onBodyChunk
            do {
                (body, response) = try await engine.perform(transfer)
            } catch let error as FetchError {
                throw await diagnosed(error, route: route)
            }
        }
        keepCookies(of: response, for: request)
        if response.statusCode == 304, case .revalidate(let entry, _) = lookup {
            var refreshed = store.httpCache.refresh(entry, with: response, for: request).response
            refreshed.fromCache = true
            onBodyChunk?(request.url, entry.body)
            return (entry.body, refreshed)
        }
        store.httpCache.store(request, response: response, body: body)
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
    func keepCookies(of response: HTTPResponse, for request: HTTPRequest) {
        guard request.httpShouldHandleCookies else { return }
        let setCookies = response.headerFields.filter { $0.name.lowercased() == "set-cookie" }.map(\.value)
        dataStore.cookieJar.store(setCookieValues: setCookies, from: response.url)
    }

    /// An idle timeout through relays, with who stalled: each HTTP/2 hop is asked for a PING;
    /// the first that does not answer stalled, and if all answer, the origin did.
    func diagnosed(_ error: FetchError, route: Route) async -> FetchError {
        guard case .idleTimeout(let seconds, let peer, let names, .none) = error.code, case .relayed(let relayed) = route else { return error }
        let alive = await opener.probe(hops: relayed.hops, timeout: min(2, seconds))
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

    /// The route for `url`: the first configuration that covers its host, else direct.
    func route(for url: URL) throws(FetchError) -> Route {
        let scheme = url.scheme?.lowercased() ?? ""
        guard let host = url.host, !host.isEmpty else { throw FetchError(.invalidURL(url.absoluteString)) }
        guard scheme == "https" || scheme == "http" else { throw FetchError(.unsupportedScheme(scheme)) }
        let bareHost = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        guard let proxy = configuration.proxyConfigurations.first(where: { $0.covers(host: bareHost) }) else {
            return .direct
        }
        let port = UInt16(url.port ?? (scheme == "https" ? 443 : 80))
        if let oblivious = proxy.obliviousHTTP {
            return try obliviousRoute(oblivious, chain: proxy.relayHops)
        }
        guard !proxy.relayHops.isEmpty else {
            throw FetchError(.invalidRelay(index: 0, reason: "a relay configuration covers \(bareHost) but has no hops"))
        }
        return .relayed(RelayedRoute(hops: try endpoints(proxy.relayHops), target: TunnelTarget(host: bareHost, port: port), opener: opener))
    }

    private func endpoints(_ hops: [ProxyConfiguration.RelayHop]) throws(FetchError) -> [RelayEndpoint] {
        var endpoints: [RelayEndpoint] = []
        for (offset, hop) in hops.enumerated() { endpoints.append(try hop.endpoint(index: offset + 1)) }
        return endpoints
    }

    /// The OHTTP relay's resource URL, reached directly or through `chain`.
    private func obliviousRoute(_ oblivious: ObliviousHTTPRelay, chain: [ProxyConfiguration.RelayHop]) throws(FetchError) -> Route {
        let relay = try oblivious.relay.endpoint(index: chain.count + 1)
        let path = oblivious.relayResourcePath.hasPrefix("/") ? oblivious.relayResourcePath : "/" + oblivious.relayResourcePath
        guard let base = oblivious.relay.endpointURL, var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else {
            throw FetchError(.oblivious("the relay has no endpoint URL"))
        }
        components.path = path
        guard let relayURL = components.url else { throw FetchError(.oblivious("bad relay resource path \(oblivious.relayResourcePath)")) }
        let carrier: Route = chain.isEmpty ? .direct
            : .relayed(RelayedRoute(hops: try endpoints(chain), target: TunnelTarget(host: relay.host, port: relay.port), opener: opener))
        return .oblivious(ObliviousRoute(relayURL: relayURL, keyConfig: try OHTTPKeyConfigRef.parse(oblivious.gatewayKeyConfig),
                                         relayHeaderFields: relay.headerFields.map { ($0.name, $0.value) }, carrier: carrier))
    }
}
