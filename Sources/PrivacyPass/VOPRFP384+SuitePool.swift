import Synchronization

extension VOPRFP384 {
    /// A suite as the pool holds it. @unchecked: a suite's OpenSSL contexts are not thread-safe,
    /// and the pool hands each box to one caller at a time (taken out, put back after).
    private final class SuiteBox: @unchecked Sendable {
        let suite: Suite
        init(_ suite: Suite) { self.suite = suite }
    }

    /// Idle suites; at most `keptSuites` (one per thread that issued at once, as a rule).
    private static let idleSuites = Mutex<[SuiteBox]>([])
    private static let keptSuites = 16

    /// Runs `body` with a suite no other caller uses meanwhile: a kept one, or a new one that is
    /// kept after.
    static func withSuite<Result>(_ body: (Suite) throws -> Result) throws -> Result {
        let box = try idleSuites.withLock { $0.popLast() } ?? SuiteBox(Suite())
        defer { idleSuites.withLock { if $0.count < keptSuites { $0.append(box) } } }
        return try body(box.suite)
    }
}
