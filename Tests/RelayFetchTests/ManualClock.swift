import Foundation
import Locking

/// A clock a test moves by hand, for the jar and the cache, which may read it from any thread.
final class ManualClock: Sendable {
    private let time: Locked<Date>
    init(_ start: Date) { time = Locked(start) }
    var now: Date { time.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { time.withLock { $0 += seconds } }
}
