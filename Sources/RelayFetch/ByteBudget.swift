import Foundation

/// Bytes several requests may receive together (say, everything one page loads). Each body
/// byte is taken from it as it arrives; a transfer that would overdraw it stops at once with
/// `responseTooLarge`, so the total never exceeds `limit`, however many transfers run at once.
public final class ByteBudget: @unchecked Sendable {
    public let limit: Int
    private let lock = NSLock()
    private var taken = 0
    private var overdrawn = false

    public init(limit: Int) { self.limit = max(0, limit) }

    /// Bytes taken so far.
    public var used: Int { lock.withLock { taken } }

    /// True once a transfer was stopped because the budget could not cover it.
    public var isExhausted: Bool { lock.withLock { overdrawn } }

    /// Counts `count` bytes that arrived outside a transfer (a cached body, say).
    public func add(_ count: Int) { lock.withLock { taken += count } }

    /// Takes `count` bytes if they fit; false (and exhausted from then on) when they do not.
    func take(_ count: Int) -> Bool {
        lock.withLock {
            guard taken + count <= limit else {
                overdrawn = true
                return false
            }
            taken += count
            return true
        }
    }
}
