/// A session's HTTP/3 relay connections by chain prefix (the hops, with their trust and
/// headers, up to and including the relay): QUIC straight to a first hop, or QUIC inside a
/// CONNECT-UDP stream through the hop before for a later one. Tunnels share an open connection
/// while the relay's MAX_STREAMS leaves it a free stream, and tunnels that arrive while one is
/// being set up wait for it instead of opening another; when all are full another is set up (a
/// few at most; beyond, tunnels wait for the relay to allow more streams). A connection left
/// without tunnels closes after `idleTimeout`. Holds each connection from the
/// start of its handshake. Each session has its own pool, so sessions never share a connection.
/// Loop thread only.
final class HTTP3ConnectionPool {
    typealias Key = RelayConnectionPool.Key
    typealias Waiter = (Result<(connection: HTTP3RelayConnection, reused: Bool), RelayError>) -> Void
    /// Sets up what carries a new connection and makes it, not yet connected (a CONNECT-UDP stream first, for a later hop).
    typealias Make = (@escaping (Result<HTTP3RelayConnection, RelayError>) -> Void) -> Void

    private let shared: MultiplexedConnectionPool<Key, HTTP3RelayConnection, Waiter>

    init(loop: EventLoop, idleTimeout: Double, maxConnections: Int) {
        shared = MultiplexedConnectionPool(loop: loop, idleTimeout: idleTimeout, maxConnections: maxConnections)
    }

    /// An open connection for `key` with a free stream: a pooled one, or a new one from `make` (`opened` is called
    /// when a new one has completed its handshake: a QUIC attempt nothing answered opened no
    /// connection). `completion` runs once, on the loop; `reused` is false only for the tunnel
    /// that started the connection.
    func connection(for key: Key, opened: @escaping () -> Void, make: @escaping Make, completion: @escaping Waiter) {
        if let connection = shared.usableConnection(for: key) { return completion(.success((connection, true))) }
        if shared.isEstablishing(key) { return shared.wait(for: key, completion) }
        guard shared.mayOpenAnother(key) else {
            return shared.waitForStream(key) { [weak self] in self?.connection(for: key, opened: opened, make: make, completion: completion) }
        }
        shared.beginEstablishing(key, waiters: [completion])
        make { [weak self] made in
            guard let self else { return }
            switch made {
            case .failure(let error):
                for waiter in shared.endEstablishing(key) ?? [] { waiter(.failure(error)) }
            case .success(let connection):
                guard shared.hold(connection, whileEstablishing: key) else { return connection.close() }  // closeAll ran meanwhile
                connect(connection, for: key, opened: opened, make: make)
            }
        }
    }

    private func connect(_ connection: HTTP3RelayConnection, for key: Key, opened: @escaping () -> Void, make: @escaping Make) {
        connection.connect { [weak self] result in
            guard let self, let waiters = self.shared.endEstablishing(key) else { return }
            switch result {
            case .success:
                opened()
                self.shared.adopt(connection, for: key)
                // Each waiter opens its stream before the next is told; those beyond the relay's
                // MAX_STREAMS choose again (another connection, or a wait for a stream).
                for (index, waiter) in waiters.enumerated() {
                    if index == 0 || connection.hasFreeStream {
                        waiter(.success((connection, index > 0)))
                    } else {
                        self.connection(for: key, opened: opened, make: make, completion: waiter)
                    }
                }
            case .failure(let error):
                for waiter in waiters { waiter(.failure(error)) }
            }
        }
    }

    /// Closes every connection, open or still in its handshake (tunnels on them fail).
    func closeAll() { shared.closeAll() }
}
