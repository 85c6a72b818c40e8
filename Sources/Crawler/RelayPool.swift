import Foundation
import RelayFetch

/// Several relay chains, one `Session` each, shared by a crawl: each host is carried by one
/// chain at a time, as `RelayPoolHealth` decides. A single session is a pool of one.
actor RelayPool {
    private let sessions: [Session]
    private var health: RelayPoolHealth
    /// Each chain's last relay failure, to say why "every chain is down".
    private var lastFailures: [Int: String] = [:]

    init(sessions: [Session], baseBackoff: Double = 1) {
        self.sessions = sessions
        health = RelayPoolHealth(chainCount: sessions.count, baseBackoff: baseBackoff)
    }

    /// The chain (index and session) for `host`, or nil when every chain is down.
    func session(for host: String) -> (chain: Int, session: Session)? {
        health.chain(for: host, now: Self.now).map { ($0, sessions[$0]) }
    }

    /// Records how a request on `chain` ended: a relay failure (its description given) takes the
    /// chain out for a while.
    func report(chain: Int, relayFailure: String?) {
        if let relayFailure {
            health.failed(chain, now: Self.now)
            lastFailures[chain] = relayFailure
        } else {
            health.succeeded(chain)
        }
    }

    /// "every relay chain is down", with each chain's last failure.
    func downReason() -> String {
        let causes = lastFailures.keys.sorted().map { "chain \($0 + 1): \(lastFailures[$0]!)" }
        return "every relay chain is down" + (causes.isEmpty ? "" : " (" + causes.joined(separator: "; ") + ")")
    }

    /// Seconds until a down chain comes back (0 when none is down).
    func secondsUntilRecovery() -> Double {
        let now = Self.now
        return max(0, (health.nextRecovery(after: now) ?? now) - now)
    }

    func upCount() -> (up: Int, total: Int) { health.upCount(at: Self.now) }

    private static var now: Double { Date().timeIntervalSince1970 }
}
