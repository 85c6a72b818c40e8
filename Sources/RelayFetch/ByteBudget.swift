import Foundation
import Locking

/// Bytes several requests may receive together (say, everything one page loads). Each body
/// byte is taken from it as it arrives; a transfer that would overdraw it stops at once with
/// `responseTooLarge`, so the total never exceeds `limit`, however many transfers run at once.
public final class ByteBudget: Sendable {
    public let limit: Int
    private let state = Locked((taken: 0, overdrawn: false))

    public init(limit: Int) { self.limit = max(0, limit) }

    /// Bytes taken so far.
    public var used: Int { state.withLock { $0.taken } }

    /// True once a transfer was stopped because the budget could not cover it.
    public var isExhausted: Bool { state.withLock { $0.overdrawn } }

    /// Counts `count` bytes that arrived outside a transfer (a cached body, say).
    public func add(_ count: Int) { state.withLock { $0.taken += count } }

    /// Takes `count` bytes if they fit; false (and exhausted from then on) when they do not.
    func take(_ count: Int) -> Bool {
        state.withLock { state in
            guard state.taken + count <= limit else {
                state.overdrawn = true
                return false
            }
            state.taken += count
            return true
        }
    }
}
