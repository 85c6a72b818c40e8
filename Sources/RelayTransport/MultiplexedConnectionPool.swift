/// A relay connection that carries many tunnels at once (HTTP/2 or HTTP/3), as a pool sees it.
protocol MultiplexedRelayConnection: AnyObject {
    /// Open and not draining: after GOAWAY open tunnels finish, new ones need another connection.
    var isUsable: Bool { get }
    /// Tunnels still open on it.
    var activeStreams: Int { get }
    /// Called when the last tunnel on it has ended.
    var onIdle: (() -> Void)? { get set }
    /// Called once when it has closed, for whatever reason.
    var onClose: (() -> Void)? { get set }
    func close()
}

extension HTTP2RelayConnection: MultiplexedRelayConnection {}
extension HTTP3RelayConnection: MultiplexedRelayConnection {}

/// A session's multiplexed relay connections by `Key`, one per key: tunnels share an open one;
/// ones that arrive while it is set up wait for it (as `Waiter`s, told by the caller when the
/// set-up ends); one that drains after GOAWAY is dropped for new tunnels; one left without
/// tunnels closes after `idleTimeout`. Loop thread only.
final class MultiplexedConnectionPool<Key: Hashable, Connection: MultiplexedRelayConnection, Waiter> {
    private let loop: EventLoop
    private let idleTimeout: Double
    private var connections: [Key: Connection] = [:]
    /// Set-ups in progress: the connection when the pool holds it during its handshake, and who waits.
    private var establishing: [Key: (connection: Connection?, waiters: [Waiter])] = [:]
    private var idleTimers: [Key: UInt64] = [:]

    init(loop: EventLoop, idleTimeout: Double) {
        self.loop = loop
        self.idleTimeout = idleTimeout
    }

    /// The open connection for `key` that may take a new tunnel (its idle timer stops), if any.
    func usableConnection(for key: Key) -> Connection? {
        guard let connection = connections[key] else { return nil }
        guard connection.isUsable else {
            connections[key] = nil  // after GOAWAY: open tunnels finish, new ones get a new connection
            return nil
        }
        if let timer = idleTimers.removeValue(forKey: key) { loop.cancelTimer(timer) }
        return connection
    }

    /// The pooled connection for `key`, usable or not.
    func connection(for key: Key) -> Connection? { connections[key] }

    func isEstablishing(_ key: Key) -> Bool { establishing[key] != nil }

    /// Marks `key`'s connection as being set up; `connection` when the pool is to hold (and
    /// `closeAll` to close) it during its handshake.
    func beginEstablishing(_ key: Key, connection: Connection? = nil, waiters: [Waiter] = []) {
        establishing[key] = (connection, waiters)
    }

    func wait(for key: Key, _ waiter: Waiter) { establishing[key]?.waiters.append(waiter) }

    /// Lets the pool hold (and `closeAll` close) `key`'s connection from now on in its set-up;
    /// false when no set-up is in progress for `key` any more.
    func hold(_ connection: Connection, whileEstablishing key: Key) -> Bool {
        guard establishing[key] != nil else { return false }
        establishing[key]?.connection = connection
        return true
    }

    /// Ends the set-up of `key`'s connection: the waiters to tell, or nil when none was in
    /// progress (`closeAll` ended one the pool held).
    func endEstablishing(_ key: Key) -> [Waiter]? { establishing.removeValue(forKey: key)?.waiters }

    /// Takes `connection` as `key`'s: it serves new tunnels until it drains, closes or idles out.
    func adopt(_ connection: Connection, for key: Key) {
        connections[key] = connection
        connection.onIdle = { [weak self, weak connection] in
            guard let self, let connection else { return }
            self.scheduleIdleClose(key, connection)
        }
        connection.onClose = { [weak self, weak connection] in
            guard let self, let connection, self.connections[key] === connection else { return }
            self.connections[key] = nil
        }
    }

    private func scheduleIdleClose(_ key: Key, _ connection: Connection) {
        if let timer = idleTimers.removeValue(forKey: key) { loop.cancelTimer(timer) }
        idleTimers[key] = loop.schedule(after: idleTimeout) { [weak self, weak connection] in
            guard let self, let connection else { return }
            self.idleTimers[key] = nil
            if connection.activeStreams == 0 {
                if self.connections[key] === connection { self.connections[key] = nil }
                connection.close()
            }
        }
    }

    /// Closes every connection, open or in a handshake the pool holds (tunnels on them fail).
    /// Set-ups it does not hold go on, and their waiters are told when they end.
    func closeAll() {
        let held = establishing.filter { $0.value.connection != nil }
        for key in held.keys { establishing[key] = nil }
        let open = Array(connections.values) + held.values.compactMap(\.connection)
        connections.removeAll()
        for timer in idleTimers.values { loop.cancelTimer(timer) }
        idleTimers.removeAll()
        for connection in open { connection.close() }
    }
}
