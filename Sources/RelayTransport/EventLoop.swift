#if canImport(Glibc)
import Glibc
#endif
import Foundation
internal import CLinux
import SystemIO

/// The I/O thread: an epoll loop that owns every file descriptor and all C protocol state of the
/// transport. Work from other threads enters through `execute`; everything else runs on the loop.
// @unchecked: `lock` guards `pending` and `stopped`; `endCondition` guards `ended`; the handlers,
// timers, `nextTimerID` and `stopping` belong to the loop thread (the loop-thread API below runs
// there only); `loopThreadID` is written once, before init returns.
package final class EventLoop: @unchecked Sendable {
    /// Called on the loop when a registered descriptor is readable or writable.
    package typealias Handler = (_ readable: Bool, _ writable: Bool, _ hangup: Bool) -> Void

    private let epollFD: Int32
    private let wakeFD: Int32
    private let lock = NSLock()
    private var pending: [() -> Void] = []
    private var handlers: [Int32: Handler] = [:]
    private var timers: [(deadline: UInt64, id: UInt64, action: () -> Void)] = []
    /// Loop-thread work to run once this turn's events, timers and queued work are handled.
    private var endOfTurn: [() -> Void] = []
    private var nextTimerID: UInt64 = 0
    private var stopping = false
    private var stopped = false  // guarded by lock: set once the loop takes no more work
    private let thread: SessionThread
    /// The receive slots the QUIC sockets of this loop share (loop thread only).
    lazy var quicReceiveSlots = QUICReceiveSlots()
    /// One buffer for every socket read on this loop (`withReadScratch`), made on first use.
    private var readScratch: UnsafeMutableRawBufferPointer?
    /// The scratch buffer's size: the most one read takes.
    package static let readScratchSize = 64 * 1024

    /// Starts a loop on a new thread named `name`.
    package init(name: String = "relayfetch.io") {
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        wakeFD = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        precondition(epollFD >= 0 && wakeFD >= 0, "epoll/eventfd unavailable")
        var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(fd: wakeFD))
        _ = epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, &event)
        thread = SessionThread(name: name, stackSize: 1 << 20)
        thread.start { [self] in run() }  // the thread keeps the loop alive until shutdown()
    }

    deinit {
        close(epollFD)
        close(wakeFD)
        readScratch?.deallocate()
    }

    /// Runs `body` with this loop's read buffer (`readScratchSize` bytes). Loop thread only, and
    /// `body` copies out what it keeps: the next read on the loop reuses the buffer. One buffer
    /// per loop thread instead of one per read (a 64 KiB temporary is a heap allocation) or one
    /// per connection (an idle one would hold it).
    package func withReadScratch<Result>(_ body: (UnsafeMutableRawBufferPointer) throws(SystemError) -> Result) throws(SystemError) -> Result {
        assert(inLoop, "the read buffer belongs to the loop thread")
        if readScratch == nil { readScratch = .allocate(byteCount: Self.readScratchSize, alignment: 16) }
        return try body(readScratch!)
    }

    /// True when called on the loop thread.
    package var inLoop: Bool { thread.isCurrent }

    /// Runs `work` on the loop thread, soon. Returns false (and drops `work`) once the loop has
    /// stopped, so a caller waiting for `work` can answer without it.
    @discardableResult
    package func execute(_ work: @escaping () -> Void) -> Bool {
        lock.lock()
        guard !stopped else {  // a stopped loop runs nothing more
            lock.unlock()
            return false
        }
        pending.append(work)
        lock.unlock()
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
        return true
    }

    /// Whether the loop thread has run its last work (after `shutdown()`).
    package var hasEnded: Bool { thread.hasEnded }

    /// After `shutdown()`: waits (up to `timeout` seconds) until the loop has run the work queued
    /// before it and ended; false at once on the loop thread.
    @discardableResult
    package func waitUntilEnded(timeout: Double) -> Bool { thread.waitUntilEnded(timeout: timeout) }

    /// Stops the loop after the work already queued; the thread then exits. Work offered after
    /// this call is refused at once (`execute` returns false), never queued and then dropped.
    package func shutdown() {
        lock.lock()
        guard !stopped else {
            lock.unlock()
            return
        }
        pending.append { [self] in stopping = true }
        stopped = true
        lock.unlock()
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    // MARK: loop-thread API

    /// Watches `fd` for readability (always) and writability (when `writable` is true).
    package func register(_ fd: Int32, writable: Bool, handler: @escaping Handler) throws(SystemError) {
        handlers[fd] = handler
        var event = epoll_event(events: Self.mask(writable: writable), data: epoll_data_t(fd: fd))
        try systemCall("epoll_ctl(ADD)") { epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) }
    }

    /// Runs `action` on the loop once everything this turn handles (ready descriptors, due timers,
    /// queued work) has run, before the loop waits again: what layers produce in one turn (frames
    /// for many streams, window updates) leaves in one write instead of one each.
    func atEndOfTurn(_ action: @escaping () -> Void) {
        endOfTurn.append(action)
    }

    /// Changes the interest set of a registered descriptor.
    package func update(_ fd: Int32, readable: Bool = true, writable: Bool) {
        var event = epoll_event(events: Self.mask(writable: writable, readable: readable), data: epoll_data_t(fd: fd))
        _ = epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event)
    }

    /// Stops watching `fd` (the caller closes it).
    package func deregister(_ fd: Int32) {
        handlers[fd] = nil
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, nil)
    }

    /// Runs `action` on the loop after `seconds`; returns an id for `cancelTimer`.
    @discardableResult
    package func schedule(after seconds: Double, _ action: @escaping () -> Void) -> UInt64 {
        nextTimerID += 1
        let deadline = Self.nowNanos() + UInt64(max(0, seconds) * 1e9)
        timers.append((deadline, nextTimerID, action))
        return nextTimerID
    }

    package func cancelTimer(_ id: UInt64) {
        timers.removeAll { $0.id == id }
    }

    package static func nowNanos() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    private static func mask(writable: Bool, readable: Bool = true) -> UInt32 {
        var mask = EPOLLRDHUP.rawValue
        if readable { mask |= EPOLLIN.rawValue }
        if writable { mask |= EPOLLOUT.rawValue }
        return mask
    }

    private func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        while !stopping {
            let count = epoll_wait(epollFD, &events, Int32(events.count), nextTimeoutMillis())
            if count > 0 {
                for event in events[0..<Int(count)] {
                    let fd = event.data.fd
                    if fd == wakeFD {
                        var value: UInt64 = 0
                        _ = read(wakeFD, &value, 8)
                        continue
                    }
                    let bits = event.events
                    let hangup = bits & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0
                    handlers[fd]?(bits & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue) != 0 || hangup,
                                  bits & EPOLLOUT.rawValue != 0, hangup)
                }
            }
            runExpiredTimers()
            runPending()
            // Work scheduled by end-of-turn work itself runs in the same pass, never later.
            while !endOfTurn.isEmpty {
                let work = endOfTurn
                endOfTurn.removeAll()
                for item in work { item() }
            }
        }
        // Drop what the stopped loop still holds, so the objects its closures captured go.
        lock.lock()
        pending.removeAll()
        lock.unlock()
        handlers.removeAll()
        timers.removeAll()
        endOfTurn.removeAll()
    }

    private func nextTimeoutMillis() -> Int32 {
        lock.lock()
        let hasPending = !pending.isEmpty
        lock.unlock()
        if hasPending { return 0 }
        guard let first = timers.map(\.deadline).min() else { return -1 }
        let now = Self.nowNanos()
        return first <= now ? 0 : Int32(min((first - now) / 1_000_000 + 1, 60_000))
    }

    private func runExpiredTimers() {
        let now = Self.nowNanos()
        let due = timers.filter { $0.deadline <= now }
        guard !due.isEmpty else { return }
        timers.removeAll { $0.deadline <= now }
        for timer in due.sorted(by: { $0.deadline < $1.deadline }) { timer.action() }
    }

    private func runPending() {
        lock.lock()
        let work = pending
        pending.removeAll()
        lock.unlock()
        for item in work { item() }
    }
}
