import Foundation
import RelayFetch

/// `--retry` and its companions, with curl 8's rules: a transient failure (a timeout, or HTTP
/// 408, 429, 500, 502, 503 or 504) is tried again up to `count` times; the wait starts at 1 s
/// and doubles up to 10 minutes, or is `--retry-delay` each time; a longer Retry-After is
/// waited instead, and a Retry-After that would end past `--retry-max-time` ends the retries.
struct RetryPolicy {
    static let transientStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]
    static let longestWait = 600.0

    var count = 0
    var delay: Double?
    /// Seconds since the first try after which no retry starts (0: no limit).
    var maximumTime = 0.0
    var allErrors = false
    var connectionRefused = false

    /// Consumes the current option if it is a retry option; returns false otherwise.
    mutating func parse(_ scanner: inout ArgumentScanner) throws -> Bool {
        switch scanner.current {
        case "--retry": count = try scanner.count(in: 0...1_000_000)
        case "--retry-delay": delay = try scanner.seconds(allowsZero: true)
        case "--retry-max-time": maximumTime = try scanner.seconds(allowsZero: true)
        case "--retry-all-errors": allErrors = true
        case "--retry-connrefused": connectionRefused = true
        default: return false
        }
        return true
    }

    /// Whether a response with `status` is worth another try.
    func retries(status: Int) -> Bool { count > 0 && (Self.transientStatuses.contains(status) || (allErrors && status >= 400)) }

    /// Whether `error` is worth another try: a timeout (the whole request's, an idle one, a
    /// relay's), a refused connection under --retry-connrefused, anything under --retry-all-errors.
    func retries(error: Error) -> Bool {
        guard count > 0 else { return false }
        if allErrors { return true }
        guard let fetch = error as? FetchError else { return false }
        if fetch.code == .timedOut || fetch.code == .idleTimeout { return true }
        guard let failure = fetch.relayError else { return false }
        return failure.cause == .timeout || (connectionRefused && failure.cause == .connectionRefused)
    }

    /// The schedule of one URL's tries.
    struct Schedule {
        let policy: RetryPolicy
        let started: Date
        private(set) var left: Int
        private var sleep: Double

        init(_ policy: RetryPolicy, started: Date = Date()) {
            self.policy = policy
            self.started = started
            left = policy.count
            sleep = policy.delay ?? 1
        }

        var retriesDone: Int { policy.count - left }

        /// Seconds to wait before the next try, or nil when none is left (count, or time);
        /// `retryAfter` is the answer's Retry-After field, if any.
        mutating func nextWait(retryAfter: String?, now: Date = Date()) -> Double? {
            let elapsed = now.timeIntervalSince(started)
            guard left > 0, policy.maximumTime == 0 || elapsed < policy.maximumTime else { return nil }
            var wait = sleep
            if let after = retryAfter.flatMap({ Self.seconds(retryAfter: $0, now: now) }), after > 0 {
                if policy.maximumTime > 0 && elapsed + after > policy.maximumTime { return nil }
                wait = max(wait, after)
            }
            left -= 1
            if policy.delay == nil { sleep = min(sleep * 2, RetryPolicy.longestWait) }
            return wait
        }

        /// Retry-After as seconds from `now`: delay-seconds or an HTTP date (RFC 9110 §10.2.3).
        static func seconds(retryAfter text: String, now: Date) -> Double? {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if !trimmed.isEmpty, trimmed.allSatisfy({ $0.isASCII && $0.isNumber }) { return Double(trimmed.prefix(9)) }
            return HTTPResponse.date(fromHTTPDate: trimmed).map { max(0, $0.timeIntervalSince(now)) }
        }
    }
}
