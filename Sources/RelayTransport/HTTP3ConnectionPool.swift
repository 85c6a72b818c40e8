/// A session's HTTP/3 relay connections, one per first-hop relay (endpoint, trust and headers):
/// tunnels share an open connection, and tunnels that arrive while one is being set up wait for
/// it instead of opening another. A connection left without tunnels closes after `idleTimeout`.
/// Holds each connection from the start of its handshake. Loop thread only.
final class HTTP3ConnectionPool {
    typealias Waiter = (Result<(connection: HTTP3RelayConnection, reused: Bool), RelayError>) -> Void

    private let loop: EventLoop
    private let idleTimeout: Double
    private var connections: [RelayEndpoint: HTTP3RelayConnection] = [:]
    private var establishing: [RelayEndpoint: (connection: HTTP3RelayConnection, waiters: [Waiter])] = [:]
    private var idleTimers: [RelayEndpoint: UInt64] = [:]
    private let resolver: HostResolver?

    init(loop: EventLoop, idleTimeout: Double, resolver: HostResolver?) {
        self.loop = loop
        self.idleTimeout = idleTimeout
        self.resolver = resolver
    }

    /// An open connection to `relay`: the pooled one, or a new one (`opened` is called when a new
    /// one has completed its handshake: a QUIC attempt nothing answered opened no connection).
    /// `completion` runs once, on the loop; `reused` is false only for the tunnel that started
    /// the connection.
    func connection(to relay: RelayEndpoint, hop: HopDescription, handshakeTimeout: Double = 10, opened: @escaping () -> Void,
                    completion: @escaping Waiter) {
        if let connection = connections[relay] {
            if connection.isUsable {
                if let timer = idleTimers.removeValue(forKey: relay) { loop.cancelTimer(timer) }
                return completion(.success((connection, true)))
            }
            connections[relay] = nil  // after GOAWAY: open tunnels finish, new ones get a new connection
        }
        if establishing[relay] != nil {
            establishing[relay]?.waiters.append(completion)
            return
        }
        let connection: HTTP3RelayConnection
        do {
            connection = try HTTP3RelayConnection(loop: loop, relay: relay, hop: hop, handshakeTimeout: handshakeTimeout, resolver: resolver)
        } catch {
            return completion(.failure(RelayError(hop: hop, cause: .tls(error.reason))))
        }
        establishing[relay] = (connection, [completion])
        connection.connect { [weak self] result in
            guard let self, let waiters = self.establishing.removeValue(forKey: relay)?.waiters else { return }
            switch result {
            case .success:
                opened()
                self.adopt(connection, for: relay)
                for (index, waiter) in waiters.enumerated() { waiter(.success((connection, index > 0))) }
            case .failure(let error):
                for waiter in waiters { waiter(.failure(error)) }
            }
        }
    }

    private func adopt(_ connection: HTTP3RelayConnection, for relay: RelayEndpoint) {
        connections[relay] = connection
        connection.onIdle = { [weak self, weak connection] in
            guard let self, let connection else { return }
            self.scheduleIdleClose(relay, connection)
        }
        connection.onClose = { [weak self, weak connection] in
            guard let self, let connection, self.connections[relay] === connection else { return }
            self.connections[relay] = nil
        }
    }

    private func scheduleIdleClose(_ relay: RelayEndpoint, _ connection: HTTP3RelayConnection) {
        if let timer = idleTimers.removeValue(forKey: relay) { loop.cancelTimer(timer) }
        idleTimers[relay] = loop.schedule(after: idleTimeout) { [weak self, weak connection] in
            guard let self, let connection else { return }
            self.idleTimers[relay] = nil
            if connection.activeStreams == 0 {
                if self.connections[relay] === connection { self.connections[relay] = nil }
                connection.close()
            }
        }
    }

    /// Closes every connection, open or still in its handshake (tunnels on them fail).
    func closeAll() {
        let open = Array(connections.values) + establishing.values.map(\.connection)
        connections.removeAll()
        for timer in idleTimers.values { loop.cancelTimer(timer) }
        idleTimers.removeAll()
        for connection in open { connection.close() }
    }
}
