import Foundation
import Locking
import RelayTransport

extension Session.Configuration {
    /// How origins (https only) are spoken to: HTTP/3 over QUIC, or TCP (HTTP/2 or HTTP/1.1)
    /// through libcurl. QUIC reaches an origin straight (a host no relay covers) or inside
    /// CONNECT-UDP through a chain of HTTP/3 relays; behind a relay that cannot carry UDP (an
    /// HTTP/2, HTTP/1.1 or SOCKS5 hop, or an HTTP/3 hop with a TCP side) TCP is used whatever
    /// this says. Oblivious HTTP relays are not affected.
    public enum OriginProtocol: String, Sendable, CaseIterable {
        /// HTTP/3 to an origin that said it offers it (`Alt-Svc: h3`) earlier in this session, or
        /// (a host reached directly) whose HTTPS record from the privacy context's encrypted
        /// resolver lists h3; TCP otherwise. What a session learns is never kept beyond it.
        case automatic = "auto"
        /// HTTP/3 to every https origin a QUIC path reaches.
        case http3 = "h3"
        /// TCP only.
        case tcp
    }
}

/// The HTTP/3 endpoints origins announced with `Alt-Svc` during one session (memory only):
/// "host:port" of the origin -> the UDP port of its `h3` alternative on the same host.
final class OriginAltServices: Sendable {
    private let ports = Locked<[String: UInt16]>([:])
    /// Origins whose QUIC failed outright this session: TCP from then on, whatever they announce.
    private let tcpPreferred = Locked<Set<String>>([])

    func http3Port(host: String, port: UInt16) -> UInt16? {
        let key = "\(host):\(port)"
        return tcpPreferred.withLock { $0.contains(key) } ? nil : ports.withLock { $0[key] }
    }

    func preferTCP(host: String, port: UInt16) { _ = tcpPreferred.withLock { $0.insert("\(host):\(port)") } }

    /// Drops the origin's alternative (it failed): QUIC goes to the origin's own port until it announces another.
    func forget(host: String, port: UInt16) { ports.withLock { $0["\(host):\(port)"] = nil } }

    /// Origins whose HTTPS record was asked for this session (once each).
    private let bindingsAsked = Locked<Set<String>>([])

    /// True the first time it is asked for an origin.
    func firstBindingLookup(host: String, port: UInt16) -> Bool { bindingsAsked.withLock { $0.insert("\(host):\(port)").inserted } }

    /// The origin's HTTPS record (RFC 9460) offers h3, on `quicPort`.
    func remember(host: String, port: UInt16, quicPort: UInt16) { ports.withLock { $0["\(host):\(port)"] = quicPort } }

    /// Remembers (or forgets, on `clear`) the h3 alternative of `response`'s origin; only an
    /// alternative on the origin's own host is taken (`h3=":443"`), as a name elsewhere would
    /// need a lookup of its own.
    func note(_ response: HTTPResponse) {
        guard let value = response.value(forHeaderField: "Alt-Svc"), response.url.scheme?.lowercased() == "https",
              let host = response.url.host, let port = UInt16(exactly: response.url.portOrDefault) else { return }
        let key = "\(host):\(port)"
        if value.trimmingCharacters(in: .whitespaces).lowercased() == "clear" { return ports.withLock { $0[key] = nil } }
        for entry in value.split(separator: ",") {
            let alternative = entry.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            guard alternative.lowercased().hasPrefix("h3=\"") else { continue }
            let authority = alternative.dropFirst(4).prefix { $0 != "\"" }
            // An alternative with no valid port (0, or past 65535) is invalid, and ignored (RFC 7838 §3).
            guard authority.hasPrefix(":"), let quicPort = UInt16(authority.dropFirst()), quicPort > 0 else { continue }
            return ports.withLock { $0[key] = quicPort }
        }
    }
}

extension Session {
    /// The HTTP/3 route to `host`:`port` through `hops` (none: direct) when the configuration
    /// and what the session learnt call for one and a QUIC path exists; nil: TCP.
    /// `tcp` is the route TCP would take: with `auto`, the exchange falls back to it when QUIC
    /// is not up within `http3FallbackDelay` or fails before the request went out.
    func http3OriginRoute(url: URL, host: String, port: UInt16, hops: [RelayEndpoint], tcp: @autoclosure () -> any Route) -> HTTP3OriginRoute? {
        guard url.scheme?.lowercased() == "https", HTTP3OriginRoute.carriesQUIC(hops) else { return nil }
        // Direct QUIC resolves the host with the transport's resolver (the privacy context's, else
        // the system's): a host libcurl would reach by a pinned address or the relay's own DoH
        // resolver stays on TCP, so QUIC never asks a resolver the session does not use.
        if hops.isEmpty, directNameResolver != nil || configuration.directHostAddress(host: host, port: Int(port)) != nil { return nil }
        let quicPort: UInt16
        switch configuration.originProtocol {
        case .tcp: return nil
        case .http3: quicPort = originAltServices.http3Port(host: host, port: port) ?? port
        case .automatic:
            guard let announced = originAltServices.http3Port(host: host, port: port) else { return nil }
            quicPort = announced
        }
        let origin = RelayEndpoint(host: host, port: quicPort, usesTLS: true, trust: TLSTrust(caFile: configuration.originCertificateAuthorityFile),
                                   relayProtocol: .http3)
        var route = HTTP3OriginRoute(hops: hops, origin: origin, originPort: port, opener: opener)
        if configuration.originProtocol == .automatic {
            route.fallback = tcp()
            route.headStart = configuration.http3FallbackDelay
        }
        return route
    }
}

extension Session {
    /// With `auto`, asks the encrypted resolver once per origin for a direct host's HTTPS record
    /// (RFC 9460): one that lists h3 counts as the origin's announcement. Relayed hosts are never
    /// resolved here, and a host libcurl would resolve another way (a pin, a relay's own DoH
    /// resolver) is left alone.
    func learnServiceBinding(for url: URL) async {
        guard configuration.originProtocol == .automatic, url.scheme?.lowercased() == "https", let nameResolver, directNameResolver == nil,
              let host = url.host, !host.hasPrefix("["), SocketAddress.literal(host, port: 0) == nil,
              let port = UInt16(exactly: url.portOrDefault), configuration.allowsDirectConnections,
              !configuration.proxyConfigurations.contains(where: { $0.covers(host: host) }),
              configuration.directHostAddress(host: host, port: Int(port)) == nil,
              originAltServices.http3Port(host: host, port: port) == nil,
              originAltServices.firstBindingLookup(host: host, port: port) else { return }
        let hint = await withCheckedContinuation { continuation in nameResolver.serviceHint(host: host) { continuation.resume(returning: $0) } }
        if case .success(let hint?) = hint, hint.offersHTTP3 { originAltServices.remember(host: host, port: port, quicPort: hint.port ?? port) }
    }
}
