import HTTPCore
import Foundation
import NameResolution
import RelayTransport

extension Session.Configuration {
    /// Seconds one encrypted DNS exchange may take: within the time to build a relay chain, so
    /// a resolver that does not answer is reported as such rather than as a chain timeout.
    var nameResolutionTimeout: Double { max(0.1, connectTimeout * 0.8) }
}

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
            throw FetchError(.nameResolution("the \(resolver) would itself be found by plain DNS: give its address (serverAddresses)"))
        }
        let transport: DNSTransport
        switch resolver.kind {
        case .https(let url):
            transport = DNSOverHTTPSTransport(url: url, usesPOST: resolver.usesPOST, route: DirectRoute(), addresses: addresses, engine: engine,
                                              configuration: configuration)
        case .tls(let host, let port):
            guard !addresses.isEmpty else {
                throw FetchError(.nameResolution("the \(resolver) needs its address (serverAddresses)"))
            }
            transport = DNSOverTLSTransport(host: host, port: port, addresses: addresses,
                                            trust: TLSTrust(caFile: configuration.originCertificateAuthorityFile), loop: loop,
                                            timeout: configuration.nameResolutionTimeout)
        case .oblivious(let relay, let target, let keys):
            transport = try ObliviousDoHTransport(relay: relay, target: target, keys: keys, addresses: addresses, engine: engine,
                                                  configuration: configuration)
        }
        return SessionNameResolver(stub: StubResolver(transport: transport, cache: context.makeCache()), required: required)
    }

    /// The DoH resolver of the first relay hop that names one (`dnsOverHTTPSURL`), reached
    /// through the chain up to that hop; its answers go to this session's cache.
    func relayResolver() throws(FetchError) -> SessionNameResolver? {
        guard let proxy = configuration.proxyConfigurations.first(where: { $0.obliviousHTTP == nil && !$0.relayHops.isEmpty }),
              let index = proxy.relayHops.firstIndex(where: { $0.dnsOverHTTPSURL != nil }), let url = proxy.relayHops[index].dnsOverHTTPSURL,
              let host = url.host else { return nil }
        let scheme = url.scheme?.lowercased()
        guard scheme == "https" else { throw FetchError(.invalidRelay(index: index + 1, reason: "dnsOverHTTPSURL must be https, not \(url.absoluteString)")) }
        guard let port = UInt16(exactly: url.portOrDefault) else {
            throw FetchError(.invalidRelay(index: index + 1, reason: "bad port in dnsOverHTTPSURL \(url.absoluteString)"))
        }
        let target = TunnelTarget(host: host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host, port: port)
        // Always the transport's chain: it resolves the first relay's name with this session's
        // resolver, where a libcurl proxy route would need the name pinned before each query.
        let route = TunnelRoute(hops: try endpoints(Array(proxy.relayHops[...index])), target: target, opener: opener)
        let transport = DNSOverHTTPSTransport(url: url, usesPOST: false, route: route, addresses: [], engine: engine, configuration: configuration)
        let cache = configuration.privacyContext?.makeCache() ?? DNSCache()
        return SessionNameResolver(stub: StubResolver(transport: transport, cache: cache),
                                   required: configuration.privacyContext?.requiresEncryptedNameResolution ?? false)
    }

    /// Forgets the names this session resolved (its privacy context's `flushCache()` does this
    /// for every session made with it).
    public func flushResolverCache() {
        nameResolver?.stub?.flushCache()
        directNameResolver?.stub?.flushCache()
    }
}
