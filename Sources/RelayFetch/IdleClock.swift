#if canImport(Glibc)
import Glibc
#endif

/// A transfer's idle timeout (curl thread): the time since the last byte received, counted only
/// once the request is on its way (until then the connect timeout applies) and not while a
/// reader that is behind holds the transfer paused (that silence is not the sender's).
struct IdleClock {
    let timeout: Double
    private var lastActivity = IdleClock.now()
    private var requestSent = false
    private(set) var timedOut = false

    init(timeout: Double) { self.timeout = timeout }

    /// Something arrived (or was written on).
    mutating func touch() { lastActivity = Self.now() }

    /// False once the transfer has been silent past the timeout; `requestStarted` is asked only
    /// until it says yes.
    mutating func check(readerBehind: Bool, requestStarted: () -> Bool) -> Bool {
        if readerBehind || !requestSent {
            if !readerBehind { requestSent = requestStarted() }
            touch()
            return true
        }
        if Self.now() - lastActivity > timeout {
            timedOut = true
            return false
        }
        return true
    }

    /// Monotonic seconds.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
