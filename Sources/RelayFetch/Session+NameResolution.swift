import Foundation
import NameResolution
import RelayTransport

extension Session {
    /// The resolver the configuration's privacy context asks for, on this session's own cache;
    /// nil when names go to the system resolver. Throws when encrypted resolution is required
    /// but the resolver itself could only be found by plain DNS.
    static func makeNameResolver(_ configuration: Configuration, engine: CurlEngine, loop: EventLoop) throws(FetchError) -> SessionNameResolver? {
        guard let context = configuration.privacyContext else { return nil }
        let required = context.requiresEncryptedNameResolution
        guard let resolver = context.resolver else {
            return required ? SessionNameResolver(stub: nil, required: true) : nil
        }
        var addresses = resolver.serverAddresses
        if let host = resolver.serverHost, SocketAddress.literal(host, port: 0) != nil { addresses = [host] + addresses }
        if addresses.isEmpty, required {
            throw FetchError(.nameResolution("the \(resolver) would itself be found by plain DNS: give its address (serverAddresses, --dns-server-address)"))
        }
        let transport: DNSTransport
        switch resolver.kind {
        case .https(let url):
            transport = DNSOverHTTPSTransport(url: url, usesPOST: resolver.usesPOST, route: .direct, addresses: addresses, engine: engine,
                                              configuration: configuration)
        case .tls(let host, let port):
            guard !addresses.isEmpty else {
                throw FetchError(.nameResolution("the \(resolver) needs its address (serverAddresses, --dns-server-address)"))
            }
            transport = DNSOverTLSTransport(host: host, port: port, addresses: addresses,
                                            trust: TLSTrust(caFile: configuration.originCertificateAuthorityFile), loop: loop,
                                            timeout: configuration.connectTimeout)
        case .oblivious(let relay, let target, let keys):
            transport = try ObliviousDoHTransport(relay: relay, target: target, keys: keys, addresses: addresses, engine: engine,
                                                  configuration: configuration)
        }
        return SessionNameResolver(stub: StubResolver(transport: transport, cache: context.makeCache()), required: required)
    }

    /// Where libcurl should connect for `url` on a direct route (resolved by the encrypted
    /// resolver); [] for relayed routes, IP literals, `directHostAddresses` entries, or no resolver.
    func pinnedAddresses(for url: URL, route: Route) async throws(FetchError) -> [String] {
        guard case .direct = route, let nameResolver, let host = url.host else { return [] }
        if configuration.directHostAddresses["\(host.lowercased()):\(url.portOrDefault)"] != nil { return [] }
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        if SocketAddress.literal(bare, port: 0) != nil { return [] }
        return try await nameResolver.pinnedAddresses(for: bare) ?? []
    }

    /// Forgets the names this session resolved (its privacy context's `flushCache()` does this
    /// for every session made with it).
    public func flushResolverCache() {
        nameResolver?.stub?.flushCache()
    }
}
