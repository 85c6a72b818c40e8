/// A session's HTTP/2 relay connections, keyed by the chain prefix that reaches the relay.
/// Tunnels that need a connection being set up wait for it instead of opening another; relays
/// that answered with HTTP/1.1 are remembered so tunnels to them stop waiting. Idle connections
/// close after `idleTimeout`. Loop thread only.
final class RelayConnectionPool {
    /// The hops (endpoint, trust, protocol and headers) up to and including a relay.
    struct Key: Hashable {
        let hops: [RelayEndpoint]
        init(_ hops: ArraySlice<RelayEndpoint>) { self.hops = Array(hops) }
    }

    private let loop: EventLoop
    private let idleTimeout: Double
    private var connections: [Key: HTTP2RelayConnection] = [:]
    private var waiting: [Key: [() -> Void]] = [:]
    private var http1Relays: Set<Key> = []
    private var idleTimers: [Key: UInt64] = [:]
    private(set) var connectionsOpened: [Int: Int] = [:]

    init(loop: EventLoop, idleTimeout: Double) {
        self.loop = loop
        self.idleTimeout = idleTimeout
    }

    func usableConnection(for key: Key) -> HTTP2RelayConnection? {
        guard let connection = connections[key] else { return nil }
        guard connection.isUsable else {
            connections[key] = nil  // after GOAWAY: open tunnels finish, new ones get a new connection
            return nil
        }
        if let timer = idleTimers.removeValue(forKey: key) { loop.cancelTimer(timer) }
        return connection
    }

    func isEstablishing(_ key: Key) -> Bool { waiting[key] != nil }
    func speaksHTTP1(_ key: Key) -> Bool { http1Relays.contains(key) }
    func beginEstablishing(_ key: Key) { waiting[key] = [] }
    func wait(for key: Key, _ retry: @escaping () -> Void) { waiting[key, default: []].append(retry) }
    func countConnection(toHop index: Int) { connectionsOpened[index, default: 0] += 1 }

    /// Ends the set-up of `key`'s connection and lets the waiting tunnels go on.
    func endEstablishing(_ key: Key, connection: HTTP2RelayConnection?, speaksHTTP1: Bool) {
        if speaksHTTP1 { http1Relays.insert(key) }
        if let connection {
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
        let retries = waiting.removeValue(forKey: key) ?? []
        for retry in retries { retry() }
    }

    private func scheduleIdleClose(_ key: Key, _ connection: HTTP2RelayConnection) {
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

    /// Whether the pooled connection for `key` answers a PING within `timeout` seconds; nil when
    /// there is none (an HTTP/1.1 hop, whose tunnel cannot be probed).
    func probe(_ key: Key, timeout: Double, completion: @escaping (Bool?) -> Void) {
        guard let connection = connections[key] else { return completion(nil) }
        var answered = false
        var timer: UInt64?
        let id = connection.ping { [loop] alive in
            guard !answered else { return }
            answered = true
            if let timer { loop.cancelTimer(timer) }
            completion(alive)
        }
        if !answered { timer = loop.schedule(after: timeout) { [weak connection] in connection?.cancelPing(id) } }
    }

    func closeAll() {
        let open = Array(connections.values)
        connections.removeAll()
        for timer in idleTimers.values { loop.cancelTimer(timer) }
        idleTimers.removeAll()
        for connection in open { connection.close() }
    }
}
