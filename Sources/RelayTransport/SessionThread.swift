#if canImport(Glibc)
import Glibc
#endif
import Foundation
internal import COpenSSL

/// One of a session's own threads (the I/O loop, libcurl's): runs its body once, then frees the
/// thread's OpenSSL state and says it has ended, so a session can wait for its threads before a
/// process exits. OpenSSL's state is freed with `OPENSSL_thread_stop`, under OpenSSL's lock,
/// rather than from the thread-exit destructor after the end is told: a process that exits once
/// the thread has ended would otherwise run OPENSSL_cleanup against that destructor (OpenSSL
/// issue 6214).
// @unchecked: `id` is written once, on the new thread, before `start` returns; `ended` is guarded
// by `endCondition`.
package final class SessionThread: @unchecked Sendable {
    private let name: String
    private let stackSize: Int?
    private var id: pthread_t?
    private let endCondition = NSCondition()
    private var ended = false

    package init(name: String, stackSize: Int? = nil) {
        self.name = name
        self.stackSize = stackSize
    }

    /// Runs `body` on the new thread; returns once that thread is known (`isCurrent` works).
    /// Call once.
    package func start(_ body: @escaping @Sendable () -> Void) {
        let started = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            id = pthread_self()
            started.signal()
            body()
            OPENSSL_thread_stop()
            endCondition.lock()
            ended = true
            endCondition.broadcast()
            endCondition.unlock()
        }
        thread.name = name
        if let stackSize { thread.stackSize = stackSize }
        thread.start()
        started.wait()
    }

    /// True when called on this thread.
    package var isCurrent: Bool {
        guard let id else { return false }
        return pthread_equal(id, pthread_self()) != 0
    }

    /// Whether the body has returned and the thread's OpenSSL state is freed.
    package var hasEnded: Bool {
        endCondition.lock()
        defer { endCondition.unlock() }
        return ended
    }

    /// Waits (up to `timeout` seconds) until the thread has ended; false at the timeout, and at
    /// once when called on the thread itself.
    @discardableResult
    package func waitUntilEnded(timeout: Double) -> Bool {
        guard !isCurrent else { return false }
        let deadline = Date().addingTimeInterval(timeout)
        endCondition.lock()
        defer { endCondition.unlock() }
        while !ended { if !endCondition.wait(until: deadline) { return false } }
        return true
    }
}
