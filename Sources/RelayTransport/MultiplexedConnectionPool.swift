/// A relay connection that carries many tunnels at once (HTTP/2 or HTTP/3), as a pool sees it.
protocol MultiplexedRelayConnection: AnyObject {
    /// Open and not draining: after GOAWAY open tunnels finish, new ones need another connection.
    var isUsable: Bool { get }
    /// Tunnels still open on it.
    var activeStreams: Int { get }
    /// Whether one more stream now stays within the relay's limit of concurrent streams
    /// (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS, QUIC MAX_STREAMS).
    var hasFreeStream: Bool { get }
    /// Called when the last tunnel on it has ended.
    var onIdle: (() -> Void)? { get set }
    /// Called once when it has closed, for whatever reason.
    var onClose: (() -> Void)? { get set }
    /// Called when it may take more streams: one ended, or the relay raised its limit.
    var onStreamAvailable: (() -> Void)? { get set }
    func close()
}

extension HTTP2RelayConnection: MultiplexedRelayConnection {}
extension HTTP3RelayConnection: MultiplexedRelayConnection {}

/// A session's multiplexed relay connections by `Key`: tunnels share an open one that has a
/// free stream; when every one is at the relay's limit of concurrent streams, another is set
/// up (one at a time per key, at most `maxConnections`), and beyond that tunnels wait for a
/// stream to end (their connect timeout bounds the wait). Tunnels that arrive while a
/// connection is set up wait for it (as `Waiter`s, told by the caller when the set-up ends).
/// One that drains after GOAWAY is dropped for new tunnels; one left without tunnels closes
/// after `idleTimeout`. Loop thread only.
final class MultiplexedConnectionPool<Key: Hashable, Connection: MultiplexedRelayConnection, Waiter> {
    private let loop: EventLoop
    private let idleTimeout: Double
    /// Connections per key: a relay's limit of concurrent streams times this is what one key carries at once.
    let maxConnections: Int
    private var connections: [Key: [Connection]] = [:]
    /// Set-ups in progress: the connection when the pool holds it during its handshake, and who waits.
    private var establishing: [Key: (connection: Connection?, waiters: [Waiter])] = [:]
    /// Tunnels waiting for a free stream on a key whose connections are all full, to be retried.
    private var streamWaiters: [Key: [() -> Void]] = [:]
    private var idleTimers: [ObjectIdentifier: UInt64] = [:]

    init(loop: EventLoop, idleTimeout: Double, maxConnections: Int) {
        self.loop = loop
        self.idleTimeout = idleTimeout
        self.maxConnections = maxConnections
    }

    /// An open connection for `key` with a free stream (its idle timer stops), if any: the
    /// oldest such, so that after a burst the newer ones fall idle and close.
    func usableConnection(for key: Key) -> Connection? {
        dropUnusable(key)
        guard let connection = connections[key]?.first(where: \.hasFreeStream) else { return nil }
        if let timer = idleTimers.removeValue(forKey: ObjectIdentifier(connection)) { loop.cancelTimer(timer) }
        return connection
    }

    /// A pooled connection for `key`, usable or not.
    func connection(for key: Key) -> Connection? { connections[key]?.first }

    func isEstablishing(_ key: Key) -> Bool { establishing[key] != nil }

    /// Whether a tunnel that found no free stream may set up another connection for `key`;
    /// false: it waits (`waitForStream`).
    func mayOpenAnother(_ key: Key) -> Bool {
        dropUnusable(key)
        return (connections[key]?.count ?? 0) < maxConnections
    }

    /// Marks `key`'s connection as being set up; `connection` when the pool is to hold (and
    /// `closeAll` to close) it during its handshake.
    func beginEstablishing(_ key: Key, connection: Connection? = nil, waiters: [Waiter] = []) {
        establishing[key] = (connection, waiters)
    }

    func wait(for key: Key, _ waiter: Waiter) { establishing[key]?.waiters.append(waiter) }

    /// Queues `retry` until a stream on one of `key`'s connections ends, the relay raises its
    /// limit or a connection goes away (the retry runs the tunnel's choice again).
    func waitForStream(_ key: Key, _ retry: @escaping () -> Void) { streamWaiters[key, default: []].append(retry) }

    /// Lets the pool hold (and `closeAll` close) `key`'s connection from now on in its set-up;
    /// false when no set-up is in progress for `key` any more.
    func hold(_ connection: Connection, whileEstablishing key: Key) -> Bool {
        guard establishing[key] != nil else { return false }
        establishing[key]?.connection = connection
        return true
    }

    /// Ends the set-up of `key`'s connection: the waiters to tell, or nil when none was in
    /// progress (`closeAll` ended one the pool held). Tunnels waiting for a stream are retried
    /// once the caller has told these (`wakeStreamWaiters` at the end of the loop's turn).
    func endEstablishing(_ key: Key) -> [Waiter]? {
        guard let ended = establishing.removeValue(forKey: key) else { return nil }
        loop.atEndOfTurn { [weak self] in self?.wakeStreamWaiters(key) }
        return ended.waiters
    }

    /// Takes `connection` as one of `key`'s: it serves new tunnels until it drains, closes or idles out.
    func adopt(_ connection: Connection, for key: Key) {
        connections[key, default: []].append(connection)
        connection.onIdle = { [weak self, weak connection] in
            guard let self, let connection else { return }
            self.scheduleIdleClose(key, connection)
        }
        connection.onClose = { [weak self, weak connection] in
            guard let self, let connection else { return }
            self.remove(connection, for: key)
            self.wakeStreamWaiters(key)
        }
        connection.onStreamAvailable = { [weak self] in self?.wakeStreamWaiters(key) }
    }

    /// Retries the tunnels waiting for a stream while one can be served: a connection has a
    /// free stream, or another may be set up. Each is tried once per wake-up (one that finds
    /// no stream queues itself again).
    private func wakeStreamWaiters(_ key: Key) {
        var budget = streamWaiters[key]?.count ?? 0
        while budget > 0, usableConnection(for: key) != nil || (!isEstablishing(key) && mayOpenAnother(key)),
              var waiting = streamWaiters[key], !waiting.isEmpty {
            budget -= 1
            let retry = waiting.removeFirst()
            streamWaiters[key] = waiting.isEmpty ? nil : waiting
            retry()
        }
    }

    /// Forgets `key`'s connections that take no new tunnels (after GOAWAY or a failure): open
    /// tunnels on them finish, new ones need another connection.
    private func dropUnusable(_ key: Key) {
        guard let list = connections[key], list.contains(where: { !$0.isUsable }) else { return }
        let usable = list.filter(\.isUsable)
        connections[key] = usable.isEmpty ? nil : usable
    }

    private func remove(_ connection: Connection, for key: Key) {
        guard let list = connections[key] else { return }
        let rest = list.filter { $0 !== connection }
        connections[key] = rest.isEmpty ? nil : rest
    }

    private func scheduleIdleClose(_ key: Key, _ connection: Connection) {
        let id = ObjectIdentifier(connection)
        if let timer = idleTimers.removeValue(forKey: id) { loop.cancelTimer(timer) }
        idleTimers[id] = loop.schedule(after: idleTimeout) { [weak self, weak connection] in
            guard let self, let connection else { return }
            self.idleTimers[id] = nil
            if connection.activeStreams == 0 {
                self.remove(connection, for: key)
                connection.close()
            }
        }
    }

    /// Closes every connection, open or in a handshake the pool holds (tunnels on them fail).
    /// Set-ups it does not hold go on, and their waiters are told when they end.
    func closeAll() {
        let held = establishing.filter { $0.value.connection != nil }
        for key in held.keys { establishing[key] = nil }
        let open = connections.values.flatMap { $0 } + held.values.compactMap(\.connection)
        connections.removeAll()
        streamWaiters.removeAll()
        for timer in idleTimers.values { loop.cancelTimer(timer) }
        idleTimers.removeAll()
        for connection in open { connection.close() }
    }
}
