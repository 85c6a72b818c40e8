/// Which of several relay chains carries each host, and which chains are down: a host sticks to
/// its chain while that chain works; a chain whose relay fails is taken out for a backoff that
/// doubles with each consecutive failure, its hosts move to the working chain with the fewest
/// hosts, and it comes back in (for hosts that need a chain) when its backoff ends; the first
/// request it then carries is its health check. With every chain down, a host has none: its URLs
/// wait. Only chains that cover the host (their domains) are candidates for it. Never a direct
/// connection. A host's chain is remembered for the `maximumHosts` hosts used most recently; one
/// forgotten is placed afresh when met again. A state machine over time values, tested alone.
struct RelayPoolHealth: Sendable {
    private struct Chain {
        var downUntil: Double = 0
        var consecutiveFailures = 0
        var hosts = 0
        var failures = 0
        var pages = 0
    }

    private var chains: [Chain]
    private var assignment: RecentlyUsedMap<String, Int>
    let baseBackoff: Double
    let maximumBackoff: Double
    /// Hosts whose chain is remembered unless told otherwise (a crawl's own bound is the same).
    static let defaultMaximumHosts = 10_000

    init(chainCount: Int, baseBackoff: Double = 1, maximumBackoff: Double = 30,
         maximumHosts: Int = Self.defaultMaximumHosts) {
        chains = Array(repeating: Chain(), count: max(1, chainCount))
        self.baseBackoff = baseBackoff
        self.maximumBackoff = maximumBackoff
        assignment = RecentlyUsedMap(capacity: maximumHosts)
    }

    /// Hosts whose chain is remembered now.
    var assignedHostCount: Int { assignment.count }

    /// The chain for `host` at `now` among `candidates` (every chain when nil), or nil when
    /// every candidate is down.
    mutating func chain(for host: String, now: Double, candidates: [Int]? = nil) -> Int? {
        let current = assignment.value(for: host)
        if let current, chains[current].downUntil <= now { return current }
        let up = (candidates ?? Array(chains.indices)).filter { chains.indices.contains($0) && chains[$0].downUntil <= now }
        guard let best = up.min(by: { (chains[$0].hosts, $0) < (chains[$1].hosts, $1) }) else { return nil }
        if let current { chains[current].hosts -= 1 }
        for forgotten in assignment.set(best, for: host) { chains[forgotten.value].hosts -= 1 }
        chains[best].hosts += 1
        return best
    }

    /// A relay of `chain` failed at `now`. Failures reported while it is already down (requests
    /// that were in flight on it) do not lengthen its backoff.
    mutating func failed(_ chain: Int, now: Double) {
        guard chains.indices.contains(chain), chains[chain].downUntil <= now else { return }
        chains[chain].consecutiveFailures += 1
        chains[chain].failures += 1
        let backoff = baseBackoff * Double(1 << min(chains[chain].consecutiveFailures - 1, 20))
        chains[chain].downUntil = now + min(maximumBackoff, backoff)
    }

    /// `chain` carried a request to the end at `now`. A request that started before the chain
    /// failed and ends while it rests says nothing of its health now: the failure stands.
    mutating func succeeded(_ chain: Int, now: Double) {
        guard chains.indices.contains(chain) else { return }
        if chains[chain].downUntil <= now { chains[chain].consecutiveFailures = 0 }
        chains[chain].pages += 1
    }

    /// When the first down chain comes back, if any is down.
    func nextRecovery(after now: Double) -> Double? {
        chains.map(\.downUntil).filter { $0 > now }.min()
    }

    /// Whether `chain` is up (not resting) at `now`.
    func isUp(_ chain: Int, at now: Double) -> Bool {
        chains.indices.contains(chain) && chains[chain].downUntil <= now
    }

    /// How many chains are up at `now` (as `states` tells it), and how many there are.
    func upCount(at now: Double) -> (up: Int, total: Int) {
        (chains.filter { Self.isKnownUp($0, at: now) }.count, chains.count)
    }

    /// Each chain at `now`: up, relay failures and exchanges carried so far, hosts on it. Up, as
    /// reported, means known to work: not resting, and no failure since its last success (a
    /// chain whose rest ended is tried again by the next request, but is not up until it works).
    func states(at now: Double) -> [(up: Bool, failures: Int, pages: Int, hosts: Int)] {
        chains.map { (Self.isKnownUp($0, at: now), $0.failures, $0.pages, $0.hosts) }
    }

    private static func isKnownUp(_ chain: Chain, at now: Double) -> Bool {
        chain.downUntil <= now && chain.consecutiveFailures == 0
    }
}
