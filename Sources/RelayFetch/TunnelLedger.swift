import Foundation
import Locking
import RelayTransport

/// What a session knows of its tunnels, asked from any thread (curl's, the caller's): the
/// sockets libcurl was given that still wait for their tunnel, the tunnels that ended lately
/// (to name the hop under a transfer that failed on a connection it did not open), the name
/// libcurl dials per route, and connection counts. All under one lock; nothing here does I/O.
final class TunnelLedger: Sendable {
    /// A socket handed to libcurl, waiting for the listener to accept it and a chain to be built.
    struct PendingTunnel {
        let hops: [RelayEndpoint]
        let target: TunnelTarget
        let status: TunnelStatus
    }

    private struct State {
        var pending: [String: PendingTunnel] = [:]
        /// The last tunnels that closed, newest last (at most `endedKept`).
        var recentlyEnded: [(target: TunnelTarget, status: TunnelStatus)] = []
        var aliases: [String: String] = [:]
        /// Connections libcurl opened to a relay it reached as its proxy.
        var proxyConnections = 0
        /// The per-hop counts of the chain builder when the session ended.
        var finalConnectionsOpened: [Int: Int] = [:]
    }
    private let state = Locked(State())
    private static let endedKept = 64

    /// Remembers that the client socket named `name` needs a tunnel through `hops` to `target`.
    func expect(_ name: String, hops: [RelayEndpoint], target: TunnelTarget) -> TunnelStatus {
        let status = TunnelStatus()
        state.withLock { $0.pending[name] = PendingTunnel(hops: hops, target: target, status: status) }
        return status
    }

    /// The tunnel the accepted connection from `peer` needs, once; nil for a socket this session
    /// did not make.
    func take(_ peer: String) -> PendingTunnel? {
        state.withLock { $0.pending.removeValue(forKey: peer) }
    }

    /// The host name libcurl dials for tunnels to `target` through `hops`: one per route, under
    /// `.invalid` (RFC 6761) and pinned to the loopback listener, so libcurl never resolves it.
    /// libcurl groups connections, and applies its per-host connection limit, by the name it
    /// dials: with one name for every route, twenty origins shared the limit of six connections
    /// and each request closed another origin's connection to open its own (170 tunnels for 200
    /// requests to 20 origins, `Benchmarks/run.sh chains`).
    func connectAlias(hops: [RelayEndpoint], target: TunnelTarget) -> String {
        let key = hops.map(\.authority).joined(separator: ",") + ">" + target.description
        return state.withLock { state in
            if let alias = state.aliases[key] { return alias }
            let alias = "route\(state.aliases.count + 1).tunnel.invalid"
            state.aliases[key] = alias
            return alias
        }
    }

    /// Keeps a tunnel that ended, for `tunnelEnded(to:since:)`.
    func ended(_ tunnel: PendingTunnel) {
        state.withLock { state in
            state.recentlyEnded.append((tunnel.target, tunnel.status))
            if state.recentlyEnded.count > Self.endedKept { state.recentlyEnded.removeFirst() }
        }
    }

    /// A tunnel to `target` that a relay closed or that failed since `time` (monotonic seconds).
    func tunnelEnded(to target: TunnelTarget, since time: Double) -> TunnelStatus? {
        state.withLock { $0.recentlyEnded.last { $0.target == target && $0.status.endedAbnormally(since: time) }?.status }
    }

    /// Counts connections libcurl opened to a `CurlProxyRoute`'s relay (hop 1).
    func countProxyConnections(_ count: Int) {
        guard count > 0 else { return }
        state.withLock { $0.proxyConnections += count }
    }

    var proxyConnections: Int { state.withLock { $0.proxyConnections } }

    /// The chain builder's per-hop counts, kept when the session ends (its loop stops with it).
    var finalConnectionsOpened: [Int: Int] {
        get { state.withLock { $0.finalConnectionsOpened } }
        set { state.withLock { $0.finalConnectionsOpened = newValue } }
    }
}
