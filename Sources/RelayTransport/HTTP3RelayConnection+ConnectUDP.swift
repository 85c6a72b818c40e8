import Foundation

/// CONNECT-UDP (RFC 9298) on an HTTP/3 relay connection: an extended CONNECT (RFC 9220) whose
/// stream carries UDP payloads to one target as DATAGRAM capsules (`ConnectUDPDatagramPath`).
///
/// nghttp3 0.8 lets a client submit `:protocol` without checking the relay's
/// SETTINGS_ENABLE_CONNECT_PROTOCOL (it validates received fields only, and has no callback that
/// reports the relay's SETTINGS), so the request goes out as is; a relay without extended
/// CONNECT answers with an error status, which fails the hop like any refusal.
extension HTTP3RelayConnection {
    /// The URI template path of RFC 9298 §2 (the default well-known template).
    static func connectUDPPath(to target: TunnelTarget) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let host = target.host.addingPercentEncoding(withAllowedCharacters: allowed) ?? target.host
        return "/.well-known/masque/udp/\(host)/\(target.port)/"
    }

    /// A new CONNECT-UDP stream through `relay` (this connection's hop) to `target`'s UDP port,
    /// with the relay's header fields; `connect` sends it.
    func makeUDPStream(relay: RelayEndpoint, target: TunnelTarget, nextHop: HopDescription?) -> HTTP3ConnectStream {
        let pseudoHeaders = [(":method", "CONNECT"), (":protocol", "connect-udp"), (":scheme", "https"),
                             (":authority", relay.authority), (":path", Self.connectUDPPath(to: target))]
        return HTTP3ConnectStream(connection: self, authority: target.description,
                                  headers: relay.fieldPairs + [("capsule-protocol", "?1")], nextHop: nextHop,
                                  pseudoHeaders: pseudoHeaders)
    }
}
