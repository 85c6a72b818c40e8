import Foundation
import RelayFetch

/// Several relay chains, one `Session` each, shared by a crawl: each host is carried by one
/// chain at a time, as `RelayPoolHealth` decides, among the chains whose relay configurations
/// cover it. A host no chain covers gets none: the crawl never fetches it, as a session would
/// (directly) for a host outside its configurations' domains. A single session is a pool of one.
actor RelayPool {
    private let sessions: [Session]
    /// How each chain is named in progress and summaries: its hops, nearest the client first.
    private let names: [String]
    private var health: RelayPoolHealth
    /// Each chain's last relay failure, to say why "every chain is down".
    private var lastFailures: [Int: String] = [:]
    /// The chains that cover each host met lately (the least recently used forgotten past the
    /// bound, and worked out again if met again).
    private var coverage: RecentlyUsedMap<String, [Int]>

    /// Where a host's URLs go now.
    enum Choice {
        case chain(Int, Session)
        /// Every chain that covers the host is resting.
        case allDown
        /// No chain covers the host: it is never fetched.
        case uncovered
    }

    init(sessions: [Session], baseBackoff: Double = 1, maximumHosts: Int = CrawlConfiguration.defaultMaximumHostsRemembered) {
        self.sessions = sessions
        names = sessions.map { Self.name(of: $0.configuration) }
        health = RelayPoolHealth(chainCount: sessions.count, baseBackoff: baseBackoff, maximumHosts: maximumHosts)
        coverage = RecentlyUsedMap(capacity: maximumHosts)
    }

    /// Hosts whose covering chains, and whose chain, are kept now.
    func hostCounts() -> (coverage: Int, assignments: Int) { (coverage.count, health.assignedHostCount) }

    /// The chain (index and session) for `host`, or why there is none.
    func choice(for host: String) -> Choice {
        let candidates = coverage.value(for: host) ?? {
            let covering = sessions.indices.filter { index in
                sessions[index].configuration.proxyConfigurations.contains { $0.covers(host: host) }
            }
            coverage.set(covering, for: host)
            return covering
        }()
        if candidates.isEmpty { return .uncovered }
        guard let chain = health.chain(for: host, now: Self.now, candidates: candidates) else { return .allDown }
        return .chain(chain, sessions[chain])
    }

    /// Records how a request on `chain` ended: a relay failure (its description given) takes the
    /// chain out for a while.
    func report(chain: Int, relayFailure: String?) {
        if let relayFailure {
            health.failed(chain, now: Self.now)
            lastFailures[chain] = relayFailure
        } else {
            health.succeeded(chain, now: Self.now)
        }
    }

    /// Whether every chain that covers `host` is resting now (false when none covers it).
    func allDown(for host: String) -> Bool {
        let now = Self.now
        let candidates = coverage.peek(host) ?? []
        return !candidates.isEmpty && candidates.allSatisfy { !health.isUp($0, at: now) }
    }

    /// "every relay chain for HOST is down", naming each chain that covers the host (its relays)
    /// with its last failure.
    func downReason(for host: String) -> String {
        let causes = (coverage.peek(host) ?? Array(sessions.indices)).map { index in
            "chain \(index + 1) (\(names[index])): " + (lastFailures[index] ?? "no failure seen")
        }
        return "every relay chain for \(host) is down (" + causes.joined(separator: "; ") + ")"
    }

    /// Seconds until a down chain comes back (0 when none is down).
    func secondsUntilRecovery() -> Double {
        let now = Self.now
        return max(0, (health.nextRecovery(after: now) ?? now) - now)
    }

    func upCount() -> (up: Int, total: Int) { health.upCount(at: Self.now) }

    /// Each chain's health now, for progress lines and summaries.
    func chainHealth() -> [RelayChainHealth] {
        health.states(at: Self.now).enumerated().map { index, state in
            RelayChainHealth(chain: index + 1, relays: names[index], up: state.up, relayFailures: state.failures, pages: state.pages,
                             hosts: state.hosts)
        }
    }

    /// The relays of a session's configurations: "host:port > host:port" per chain, an OHTTP
    /// relay as "ohttp:host", configurations separated by ", ".
    private static func name(of configuration: Session.Configuration) -> String {
        let chains = configuration.proxyConfigurations.map { proxy -> String in
            var hops = proxy.relayHops.compactMap { $0.endpointURL.map { "\($0.host ?? ""):\($0.port ?? 443)" } }
            if let oblivious = proxy.obliviousHTTP, let url = oblivious.relay.endpointURL { hops.append("ohttp:\(url.host ?? "")") }
            return hops.joined(separator: " > ")
        }
        return chains.joined(separator: ", ")
    }

    private static var now: Double { Date().timeIntervalSince1970 }
}
