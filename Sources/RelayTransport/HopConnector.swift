/// One way of reaching a relay hop, and everything about it that the rest of the code asks:
/// how the hop is named (for `-v`, errors and HAR), where it may sit in a chain, how a tunnel
/// through it is opened (its ALPN and its pool are its own business) and whether it can be
/// probed. `HopRegistry` picks the connector of each hop by its `RelayProtocol`; the chain
/// builder only walks the hops (curl's connection filters, set up hop by hop).
///
/// Adding a transport (as the SOCKS5 hop was added):
/// 1. a file with a type conforming to `HopConnector` (`SOCKS5Connector`): `describe` names the
///    hop; `openTunnel` gets the layer under the hop from `context.transport(toHop:attempt:alpn:)`
///    (TCP to the first hop, a tunnel through the hops before otherwise; TLS when it offers ALPN),
///    runs its own handshake as a `TransportLayer` and hands it to
///    `context.connect(_:hop:attempt:completion:)`, which reports the hop as open;
/// 2. the handshake as an I/O-free state machine in a file of its own (`SOCKS5Handshake`),
///    tested without sockets;
/// 3. a `RelayProtocol` case and its line in `HopRegistry`; the relay URL scheme or CLI value
///    that chooses it; an end-to-end test against a real server of that kind.
protocol HopConnector {
    /// The connector for hop `index` (`relay`) of a chain built with `context`.
    init(context: ChainContext, relay: RelayEndpoint, index: Int)

    /// How hop `index` (`relay`) reads in `-v`, errors and HAR: its endpoint and the protocol
    /// spoken to it. `alpn`: what the hop's TLS negotiated, once it has (nil before, or without TLS).
    static func describe(_ relay: RelayEndpoint, index: Int, negotiated alpn: String?) -> HopDescription

    /// Whether this hop's tunnels can carry datagrams (CONNECT-UDP) besides byte streams.
    static var carriesDatagrams: Bool { get }

    /// Why this hop cannot sit behind a hop reached by `previous` (say QUIC behind a hop whose
    /// tunnels carry no datagrams), or nil when it can.
    static func placementProblem(behind previous: any HopConnector.Type) -> String?

    /// Adjusts hop `index` of a new attempt before anything is sent (session memory: a hop that
    /// goes straight to its fallback, a port learnt from Alt-Svc).
    func prepare(hop index: Int, attempt: ChainAttempt)

    /// Opens a tunnel through the attempt's first `index` hops to `target`; `completion` runs once,
    /// on the loop, with the connected layer or the error of the hop that failed.
    func openTunnel(through index: Int, to target: TunnelTarget, attempt: ChainAttempt,
                    completion: @escaping (Result<TransportLayer, RelayError>) -> Void)

    /// Whether hop `index` of `hops` answers a liveness probe on its pooled connection within
    /// `timeout`: true or false, or nil when it cannot be asked (no pooled connection, or a
    /// protocol without a probe: HTTP/1.1, HTTP/3, SOCKS5).
    func probe(hop index: Int, of hops: [RelayEndpoint], timeout: Double, completion: @escaping (Bool?) -> Void)
}

extension HopConnector {
    static var carriesDatagrams: Bool { false }
    static func placementProblem(behind previous: any HopConnector.Type) -> String? { nil }
    func prepare(hop index: Int, attempt: ChainAttempt) {}
    func probe(hop index: Int, of hops: [RelayEndpoint], timeout: Double, completion: @escaping (Bool?) -> Void) { completion(nil) }
}
