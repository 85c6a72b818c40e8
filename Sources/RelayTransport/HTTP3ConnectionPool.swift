/// A session's HTTP/3 relay connections, one per first-hop relay (endpoint, trust and headers):
/// tunnels share an open connection, and tunnels that arrive while one is being set up wait for
/// it instead of opening another. A connection left without tunnels closes after `idleTimeout`.
/// Holds each connection from the start of its handshake. Loop thread only.
final class HTTP3ConnectionPool {
    typealias Waiter = (Result<(connection: HTTP3RelayConnection, reused: Bool), RelayError>) -> Void

    private let loop: EventLoop
    private let shared: MultiplexedConnectionPool<RelayEndpoint, HTTP3RelayConnection, Waiter>
    private let resolver: HostResolver?

    init(loop: EventLoop, idleTimeout: Double, resolver: HostResolver?) {
        self.loop = loop
        self.resolver = resolver
        shared = MultiplexedConnectionPool(loop: loop, idleTimeout: idleTimeout)
    }

    /// An open connection to `relay`: the pooled one, or a new one (`opened` is called when a new
    /// one has completed its handshake: a QUIC attempt nothing answered opened no connection).
    /// `completion` runs once, on the loop; `reused` is false only for the tunnel that started
    /// the connection.
    func connection(to relay: RelayEndpoint, hop: HopDescription, handshakeTimeout: Double = 10, opened: @escaping () -> Void,
                    completion: @escaping Waiter) {
        if let connection = shared.usableConnection(for: relay) { return completion(.success((connection, true))) }
        if shared.isEstablishing(relay) { return shared.wait(for: relay, completion) }
        let connection: HTTP3RelayConnection
        do {
            connection = try HTTP3RelayConnection(loop: loop, relay: relay, hop: hop, handshakeTimeout: handshakeTimeout, resolver: resolver)
        } catch {
            return completion(.failure(RelayError(hop: hop, cause: .tls(error.reason))))
        }
        shared.beginEstablishing(relay, connection: connection, waiters: [completion])
        connection.connect { [weak self] result in
            guard let self, let waiters = self.shared.endEstablishing(relay) else { return }
            switch result {
            case .success:
                opened()
                self.shared.adopt(connection, for: relay)
                for (index, waiter) in waiters.enumerated() { waiter(.success((connection, index > 0))) }
            case .failure(let error):
                for waiter in waiters { waiter(.failure(error)) }
            }
        }
    }

    /// Closes every connection, open or still in its handshake (tunnels on them fail).
    func closeAll() { shared.closeAll() }
}
