/// SOCKS5 (RFC 1928) to a relay over TCP, or through the hops before it: one connection per
/// tunnel (nothing to pool, nothing to probe), no TLS to the relay and no header fields. The
/// target's name goes to the SOCKS server, which resolves it; the hop's credentials, when it
/// has them, are offered as username/password (RFC 1929). It may sit anywhere in a chain, but
/// its tunnels carry byte streams only, so no QUIC hop can follow it.
struct SOCKS5Connector: HopConnector {
    let context: ChainContext

    init(context: ChainContext, relay: RelayEndpoint, index: Int) { self.context = context }

    static func describe(_ relay: RelayEndpoint, index: Int, negotiated alpn: String?) -> HopDescription {
        HopDescription(index: index, endpoint: relay.authority, protocolName: "SOCKS5")
    }

    func openTunnel(through count: Int, to target: TunnelTarget, attempt: ChainAttempt,
                    completion: @escaping (Result<TransportLayer, RelayError>) -> Void) {
        let relay = attempt.hops[count - 1]
        let hop = Self.describe(relay, index: count, negotiated: nil)
        let handshake: SOCKS5Handshake
        do throws(RelayError) {
            handshake = try SOCKS5Handshake(target: target, credentials: relay.credentials, hop: hop,
                                            nextHop: context.nextHop(after: count, attempt: attempt))
        } catch {
            return completion(.failure(error))
        }
        context.transport(toHop: count, attempt: attempt, alpn: nil) { [context] result in
            switch result {
            case .failure(let error):
                completion(.failure(error))
            case .success(let (layer, _)):
                context.connect(HandshakeLayer(over: layer, handshake: handshake, hop: hop), hop: count, attempt: attempt, completion: completion)
            }
        }
    }
}
