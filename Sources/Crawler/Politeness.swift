import Foundation
import RelayFetch

/// When the crawler may start its next request: per host, at most `perHostConcurrency` at once
/// and `delay` seconds (or the host's `Crawl-delay`, if longer) between starts, nothing while a
/// host asked us to back off (429/503 with Retry-After); overall, at most `requestsPerSecond`.
/// A state machine over time values: no clock, no I/O, tested alone. What a claim asks (the
/// busy hosts) costs O(log n) per event, not a look at every host; at most `maximumHosts` hosts
/// are kept.
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
    /// Hosts seen, the least recently used idle one forgotten past the bound: a forgotten host
    /// starts afresh, as a new one (its robots.txt, read again, gives its Crawl-delay back).
    /// A host with a request in flight, a delay still running or a pause is never forgotten.
    private var hosts: RecentlyUsedMap<String, HostState>
    /// Hosts that may not start a request, as of the last change or release of each: kept as
    /// events come, so that a claim reads it instead of looking at every host.
    private var busy: Set<String> = []
    /// When hosts changed or waiting for time are to be looked at again.
    private var releases = ReleaseHeap()
    private var nextGlobalStart: Double = 0
    /// The latest time any call gave: what "idle" means when a host must be forgotten.
    private var clock: Double = 0

    init(policy: Policy, maximumHosts: Int = CrawlConfiguration.defaultMaximumHostsRemembered) {
        self.policy = policy
        hosts = RecentlyUsedMap(capacity: maximumHosts)
    }

    /// Hosts whose state is kept now.
    var hostCount: Int { hosts.count }

    /// Hosts that may not start a request at `now`.
    mutating func busyHosts(at now: Double) -> Set<String> {
        releaseDue(at: now)
        return busy
    }

    /// Seconds until the global rate limit lets any request start (0 when it does now).
    func globalWait(at now: Double) -> Double { max(0, nextGlobalStart - now) }

    /// The earliest time after `now` at which a host that is busy only by time may free up (an
    /// early answer only wakes the caller to find nothing yet).
    mutating func nextHostRelease(after now: Double) -> Double? {
        releaseDue(at: now)
        return releases.first?.time
    }

    /// A request to `host` starts at `now`.
    mutating func start(_ host: String, at now: Double) {
        var state = state(of: host, at: now)
        state.active += 1
        state.nextStart = now + max(policy.delay, state.crawlDelay)
        store(state, for: host)
        if let rate = policy.requestsPerSecond, rate > 0 { nextGlobalStart = max(nextGlobalStart, now) + 1 / rate }
    }

    /// The request claimed for `host` is being sent now (after robots.txt, which may have set a
    /// Crawl-delay): the delay counts from here.
    mutating func sending(_ host: String, at now: Double) {
        clock = max(clock, now)
        guard var state = hosts.value(for: host) else { return }
        state.nextStart = max(state.nextStart, now + max(policy.delay, state.crawlDelay))
        store(state, for: host)
    }

    /// Seconds between request starts to `host`: the delay, or its robots.txt Crawl-delay if longer.
    func startInterval(for host: String) -> Double { max(policy.delay, hosts.peek(host)?.crawlDelay ?? 0) }

    /// A request to `host` ended.
    mutating func finish(_ host: String) {
        guard var state = hosts.value(for: host) else { return }
        state.active = max(0, state.active - 1)
        store(state, for: host)
    }

    /// The host's robots.txt asked for `seconds` between requests.
    mutating func setCrawlDelay(_ seconds: Double, for host: String, now: Double) {
        var state = state(of: host, at: now)
        state.crawlDelay = seconds
        state.nextStart = max(state.nextStart, now + seconds)
        store(state, for: host)
    }

    /// The host asked us to wait (429 or 503 with Retry-After): no request starts before `until`.
    mutating func pause(_ host: String, until: Double) {
        var state = state(of: host, at: clock)
        state.pausedUntil = max(state.pausedUntil, until)
        store(state, for: host)
    }

    private mutating func state(of host: String, at now: Double) -> HostState {
        clock = max(clock, now)
        return hosts.value(for: host) ?? HostState()
    }

    /// Keeps `state`, and has the host looked at again when it may start: at once when it was
    /// busy by concurrency alone (a request ended), or when its delay or pause ends. Until then it
    /// counts as busy. A new host may take the place of the least recently used idle one.
    private mutating func store(_ state: HostState, for host: String) {
        let now = clock
        for forgotten in hosts.set(state, for: host, evictable: { Self.isIdle($0, at: now) }) { busy.remove(forgotten.key) }
        busy.insert(host)
        if state.active < policy.perHostConcurrency { releases.insert(max(state.nextStart, state.pausedUntil), host: host) }
    }

    /// Looks again at every host whose time came by `now`.
    private mutating func releaseDue(at now: Double) {
        clock = max(clock, now)
        while let due = releases.first, due.time <= now {
            releases.removeFirst()
            guard let state = hosts.peek(due.host) else {
                busy.remove(due.host)
                continue
            }
            if Self.canStart(state, policy: policy, at: now) { busy.remove(due.host) }
        }
    }

    private static func canStart(_ state: HostState, policy: Policy, at now: Double) -> Bool {
        state.active < policy.perHostConcurrency && state.nextStart <= now && state.pausedUntil <= now
    }

    private static func isIdle(_ state: HostState, at now: Double) -> Bool {
        state.active == 0 && state.nextStart <= now && state.pausedUntil <= now
    }
}
