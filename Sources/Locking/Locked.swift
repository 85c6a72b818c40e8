import Foundation

/// A value behind a lock: the only way to it is `withLock`, so it cannot be touched unlocked.
/// The same shape as the standard library's `Mutex`, which we do not use: on Linux it waits on
/// a futex from uninstrumented code, so ThreadSanitizer sees no ordering and reports every
/// access it guards as a race (scripts/sanitize.sh thread would fail on correct code). This one
/// sits on a pthread mutex (NSLock), which ThreadSanitizer understands.
public final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is read and written only inside `withLock`, with `lock` held; values
    // go in and out as `sending`, as with `Mutex`, so a non-Sendable one is never shared.
    private let lock = NSLock()
    private var value: Value

    public init(_ value: sending Value) {
        self.value = value
    }

    /// Runs `body` with the lock held and the value in hand.
    public func withLock<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
