import Foundation

/// When the crawler may start its next request: per host, at most `perHostConcurrency` at once
/// and `delay` seconds (or the host's `Crawl-delay`, if longer) between starts, nothing while a
/// host asked us to back off (429/503 with Retry-After); overall, at most `requestsPerSecond`.
/// A state machine over time values: no clock, no I/O, tested alone.
struct Politeness: Sendable {
    struct Policy: Sendable {
        var perHostConcurrency = 2
        var delay: Double = 0
        var requestsPerSecond: Double?
    }

    private struct HostState {
        var active = 0
        var nextStart: Double = 0
        var crawlDelay: Double = 0
        var pausedUntil: Double = 0
    }

    let policy: Policy
    private var hosts: [String: HostState] = [:]
    private var nextGlobalStart: Double = 0

    init(policy: Policy) { self.policy = policy }

    /// Hosts that may not start a request at `now`.
    func busyHosts(at now: Double) -> Set<String> {
        Set(hosts.filter { !Self.canStart($0.value, policy: policy, at: now) }.keys)
    }

    /// Seconds until the global rate limit lets any request start (0 when it does now).
    func globalWait(at now: Double) -> Double { max(0, nextGlobalStart - now) }

    /// The earliest time after `now` at which a host that is busy only by time frees up.
    func nextHostRelease(after now: Double) -> Double? {
        hosts.values.filter { $0.active < policy.perHostConcurrency }.map { max($0.nextStart, $0.pausedUntil) }.filter { $0 > now }.min()
    }

    /// A request to `host` starts at `now`.
    mutating func start(_ host: String, at now: Double) {
        var state = hosts[host] ?? HostState()
        state.active += 1
        state.nextStart = now + max(policy.delay, state.crawlDelay)
        hosts[host] = state
        if let rate = policy.requestsPerSecond, rate > 0 { nextGlobalStart = max(nextGlobalStart, now) + 1 / rate }
    }

    /// The request claimed for `host` is being sent now (after robots.txt, which may have set a
    /// Crawl-delay): the delay counts from here.
    mutating func sending(_ host: String, at now: Double) {
        guard var state = hosts[host] else { return }
        state.nextStart = max(state.nextStart, now + max(policy.delay, state.crawlDelay))
        hosts[host] = state
    }

    /// Seconds between request starts to `host`: the delay, or its robots.txt Crawl-delay if longer.
    func startInterval(for host: String) -> Double { max(policy.delay, hosts[host]?.crawlDelay ?? 0) }

    /// A request to `host` ended.
    mutating func finish(_ host: String) {
        hosts[host, default: HostState()].active = max(0, (hosts[host]?.active ?? 1) - 1)
    }

    /// The host's robots.txt asked for `seconds` between requests.
    mutating func setCrawlDelay(_ seconds: Double, for host: String, now: Double) {
        var state = hosts[host] ?? HostState()
        state.crawlDelay = seconds
        state.nextStart = max(state.nextStart, now + seconds)
        hosts[host] = state
    }

    /// The host asked us to wait (429 or 503 with Retry-After): no request starts before `until`.
    mutating func pause(_ host: String, until: Double) {
        hosts[host, default: HostState()].pausedUntil = max(hosts[host]?.pausedUntil ?? 0, until)
    }

    private static func canStart(_ state: HostState, policy: Policy, at now: Double) -> Bool {
        state.active < policy.perHostConcurrency && state.nextStart <= now && state.pausedUntil <= now
    }
}
