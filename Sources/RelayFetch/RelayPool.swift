import Foundation
import Locking
import RelayTransport

/// Several relay chains used as one: each host is carried by one chain at a time, as
/// `RelayPoolHealth` decides (sticky, rested after a relay failure, failing over to the chain
/// with the fewest hosts), among the chains whose relay configurations cover it. With every
/// covering chain resting, a host has none: never a direct connection. A host no chain covers
/// gets none either; the caller says what that means (a crawl never fetches it, a session may
/// go direct if its configuration allows). The routing policy `crawl`, `proxy` and a session
/// with `RelayChainPolicy.failover` share: a chain is what carries a host for its user (a
/// `Session` per chain in a crawl, a relay configuration's index in a session).
package final class RelayPool<Chain: Sendable>: Sendable {
    private struct State {
        var health: RelayPoolHealth
        /// Each chain's last relay failure, to say why "every chain is down".
        var lastFailures: [Int: String] = [:]
        /// The same failures as the transport gave them, where it did: what a session or a
        /// proxy client is told when every chain for its host rests.
        var lastErrors: [Int: RelayError] = [:]
        /// The chains that cover each host met lately (the least recently used forgotten past
        /// the bound, and worked out again if met again).
        var coverage: RecentlyUsedMap<String, [Int]>
    }

    private let chains: [Chain]
    private let configurations: [[ProxyConfiguration]]
    /// How each chain is named in progress and summaries: its hops, nearest the client first.
    package let names: [String]
    private let state: Locked<State>

    /// Where a host's traffic goes now.
    package enum Choice {
        case chain(Int, Chain)
        /// Every chain that covers the host is resting.
        case allDown
        /// No chain covers the host.
        case uncovered
    }

    /// A pool of `chains`, each with the relay configurations that say which hosts it covers;
    /// a failed chain rests `baseBackoff` seconds, doubling up to `maximumBackoff`; the chains
    /// of `maximumHosts` hosts are remembered.
    package init(chains: [(chain: Chain, configurations: [ProxyConfiguration])], baseBackoff: Double, maximumBackoff: Double = 30,
                 maximumHosts: Int) {
        self.chains = chains.map(\.chain)
        configurations = chains.map(\.configurations)
        names = configurations.map(Self.name(of:))
        state = Locked(State(health: RelayPoolHealth(chainCount: chains.count, baseBackoff: baseBackoff, maximumBackoff: maximumBackoff,
                                                     maximumHosts: maximumHosts),
                             coverage: RecentlyUsedMap(capacity: maximumHosts)))
    }

    package var chainCount: Int { chains.count }

    /// Hosts whose covering chains, and whose chain, are kept now.
    package func hostCounts() -> (coverage: Int, assignments: Int) {
        state.withLock { ($0.coverage.count, $0.health.assignedHostCount) }
    }

    /// The chain (index and what carries it) for `host`, or why there is none.
    package func choice(for host: String) -> Choice {
        let now = Self.now
        return state.withLock { state in
            let candidates = candidates(for: host, in: &state)
            if candidates.isEmpty { return .uncovered }
            guard let chain = state.health.chain(for: host, now: now, candidates: candidates) else { return .allDown }
            return .chain(chain, chains[chain])
        }
    }

    /// Records how a request on `chain` ended: a relay failure (its description given) takes the
    /// chain out for a while.
    package func report(chain: Int, relayFailure: String?) {
        report(chain: chain, relayFailure: relayFailure, error: nil)
    }

    /// Records how a tunnel or request on `chain` ended, as the transport said it.
    package func report(chain: Int, failure: RelayError?) {
        report(chain: chain, relayFailure: failure.map { "\($0)" }, error: failure)
    }

    private func report(chain: Int, relayFailure: String?, error: RelayError?) {
        let now = Self.now
        state.withLock { state in
            if let relayFailure {
                state.health.failed(chain, now: now)
                state.lastFailures[chain] = relayFailure
                state.lastErrors[chain] = error
            } else {
                state.health.succeeded(chain, now: now)
            }
        }
    }

    /// A transport failure of the chains that cover `host`: the last such chain's (in the
    /// pool's order) that has one, which is the last one tried when every chain failed in turn.
    package func lastError(for host: String) -> RelayError? {
        state.withLock { state in
            (state.coverage.peek(host) ?? Array(chains.indices)).compactMap { state.lastErrors[$0] }.last
        }
    }

    /// Whether every chain that covers `host` is resting now (false when none covers it).
    package func allDown(for host: String) -> Bool {
        let now = Self.now
        return state.withLock { state in
            let candidates = state.coverage.peek(host) ?? []
            return !candidates.isEmpty && candidates.allSatisfy { !state.health.isUp($0, at: now) }
        }
    }

    /// "every relay chain for HOST is down", naming each chain that covers the host (its relays)
    /// with its last failure.
    package func downReason(for host: String) -> String {
        state.withLock { state in
            let causes = (state.coverage.peek(host) ?? Array(chains.indices)).map { index in
                "chain \(index + 1) (\(names[index])): " + (state.lastFailures[index] ?? "no failure seen")
            }
            return "every relay chain for \(host) is down (" + causes.joined(separator: "; ") + ")"
        }
    }

    /// Seconds until a down chain comes back (0 when none is down).
    package func secondsUntilRecovery() -> Double {
        let now = Self.now
        return state.withLock { max(0, ($0.health.nextRecovery(after: now) ?? now) - now) }
    }

    package func upCount() -> (up: Int, total: Int) {
        let now = Self.now
        return state.withLock { $0.health.upCount(at: now) }
    }

    /// Each chain's health now (its name, up, relay failures, exchanges carried, hosts on it),
    /// for progress lines and summaries.
    package func states() -> [(relays: String, up: Bool, failures: Int, pages: Int, hosts: Int)] {
        let now = Self.now
        return state.withLock { $0.health.states(at: now) }.enumerated().map { index, state in
            (names[index], state.up, state.failures, state.pages, state.hosts)
        }
    }

    /// The chains whose configurations cover `host`, remembered.
    private func candidates(for host: String, in state: inout State) -> [Int] {
        if let known = state.coverage.value(for: host) { return known }
        let covering = configurations.indices.filter { index in configurations[index].contains { $0.covers(host: host) } }
        state.coverage.set(covering, for: host)
        return covering
    }

    /// The relays of a chain's configurations: "host:port > host:port" per configuration, an
    /// OHTTP relay as "ohttp:host", configurations separated by ", ".
    private static func name(of configurations: [ProxyConfiguration]) -> String {
        let chains = configurations.map { proxy -> String in
            var hops = proxy.relayHops.compactMap { $0.endpointURL.map { "\($0.host ?? ""):\($0.port ?? 443)" } }
            if let oblivious = proxy.obliviousHTTP, let url = oblivious.relay.endpointURL { hops.append("ohttp:\(url.host ?? "")") }
            return hops.joined(separator: " > ")
        }
        return chains.joined(separator: ", ")
    }

    private static var now: Double { Date().timeIntervalSince1970 }
}
