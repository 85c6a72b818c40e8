import Foundation
import RelayFetch

/// How failed fetches are tried again: transport failures and 429, 500, 502, 503 and 504, up to
/// `maximumRetries` times, after an exponentially growing delay with jitter, or after the
/// server's `Retry-After` (capped at `maximumDelay`) when it gives one.
public struct RetryPolicy: Sendable {
    public var maximumRetries = 2
    /// The first retry's delay in seconds, doubled for each further one.
    public var baseDelay: Double = 0.5
    /// No wait, Retry-After and robots.txt's Crawl-delay included, is longer than this.
    public var maximumDelay: Double = 60

    public init() {}

    /// Whether a response with `status` is worth trying again.
    public static func isRetryable(status: Int) -> Bool { [429, 500, 502, 503, 504].contains(status) }

    /// Seconds to wait before retry number `retry` (1 for the first). `retryAfter` is the
    /// server's wish; `jitter` is a random number in 0..<1 (between half and all the backoff).
    public func delay(retry: Int, retryAfter: Double?, jitter: Double) -> Double {
        if let retryAfter { return min(maximumDelay, max(0, retryAfter)) }
        let backoff = baseDelay * pow(2, Double(max(0, retry - 1)))
        return min(maximumDelay, backoff * (0.5 + 0.5 * min(max(jitter, 0), 1)))
    }

    /// A Retry-After value (RFC 9110 10.2.3) in seconds from `now`: delay-seconds or an HTTP-date.
    public static func retryAfterSeconds(_ value: String, now: Date = Date()) -> Double? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed), seconds >= 0 { return Double(seconds) }
        guard let date = HTTPResponse.date(fromHTTPDate: trimmed) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}
