/// A session's HTTP/2 relay connections, keyed by the chain prefix that reaches the relay.
/// Tunnels that need a connection being set up wait for it instead of opening another; relays
/// that answered with HTTP/1.1 are remembered so tunnels to them stop waiting. When the
/// relay's limit of concurrent streams fills a connection, another is opened (a few at most;
/// beyond, tunnels wait for a stream). Idle connections close after `idleTimeout`. Loop thread only.
final class RelayConnectionPool {
    /// The hops (endpoint, trust, protocol and headers) up to and including a relay.
    struct Key: Hashable {
        let hops: [RelayEndpoint]
        init(_ hops: ArraySlice<RelayEndpoint>) { self.hops = Array(hops) }
    }

    private let loop: EventLoop
    /// Waiters retry once the set-up ends: on the new connection, or on their own.
    private let shared: MultiplexedConnectionPool<Key, HTTP2RelayConnection, () -> Void>
    private var http1Relays: Set<Key> = []
    private(set) var connectionsOpened: [Int: Int] = [:]

    init(loop: EventLoop, idleTimeout: Double, maxConnections: Int) {
        self.loop = loop
        shared = MultiplexedConnectionPool(loop: loop, idleTimeout: idleTimeout, maxConnections: maxConnections)
    }

    func usableConnection(for key: Key) -> HTTP2RelayConnection? { shared.usableConnection(for: key) }
    func isEstablishing(_ key: Key) -> Bool { shared.isEstablishing(key) }
    func speaksHTTP1(_ key: Key) -> Bool { http1Relays.contains(key) }
    func mayOpenAnother(_ key: Key) -> Bool { shared.mayOpenAnother(key) }
    func beginEstablishing(_ key: Key) { shared.beginEstablishing(key) }
    func wait(for key: Key, _ retry: @escaping () -> Void) { shared.wait(for: key, retry) }
    func waitForStream(_ key: Key, _ retry: @escaping () -> Void) { shared.waitForStream(key, retry) }
    /// Lets `closeAll` close `key`'s new connection while it waits for the relay's SETTINGS.
    func hold(_ connection: HTTP2RelayConnection, whileEstablishing key: Key) { _ = shared.hold(connection, whileEstablishing: key) }
    func countConnection(toHop index: Int) { connectionsOpened[index, default: 0] += 1 }

    /// Ends the set-up of `key`'s connection and lets the waiting tunnels go on. A connection
    /// whose set-up `closeAll` ended is closed, not pooled.
    func endEstablishing(_ key: Key, connection: HTTP2RelayConnection?, speaksHTTP1: Bool) {
        if speaksHTTP1 { http1Relays.insert(key) }
        guard let waiters = shared.endEstablishing(key) else {
            connection?.close()
            return
        }
        if let connection, connection.isUsable { shared.adopt(connection, for: key) }
        for retry in waiters { retry() }
    }

    /// Whether the pooled connection for `key` answers a PING within `timeout` seconds; nil when
    /// there is none (an HTTP/1.1 hop, whose tunnel cannot be probed).
    func probe(_ key: Key, timeout: Double, completion: @escaping (Bool?) -> Void) {
        guard let connection = shared.connection(for: key) else { return completion(nil) }
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

    func closeAll() { shared.closeAll() }
}
