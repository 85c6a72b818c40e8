import Foundation
import Locking

/// The one meter line of `get -Z`, as curl shows one for parallel transfers: the sum of every
/// transfer's bytes (a percent only once each started transfer knows its size), the speed,
/// the time, and how many transfers are done and running. Each transfer counts into a part
/// (`part()`), a `ProgressMeter` that does not draw; this draws a few times a second.
final class ParallelProgressMeter: Sendable {
    private struct State {
        var parts: [ProgressMeter] = []
        var done = 0
        var finished = false
    }

    private let state = Locked(State())
    private let transfers: Int
    private let bar: Bool
    private let io: CommandIO
    private let started = Date()
    private let ticker = Locked<Task<Void, Never>?>(nil)

    init(transfers: Int, bar: Bool, io: CommandIO) {
        self.transfers = transfers
        self.bar = bar
        self.io = io
        ticker.withLock { $0 = Task { [weak self] in
            while !Task.isCancelled, let self {
                self.draw()
                try? await Task.sleep(nanoseconds: 250_000_000)
            }
        } }
    }

    /// A meter for one more transfer, counted in this line.
    func part() -> ProgressMeter {
        let part = ProgressMeter(bar: bar, io: io, draws: false)
        state.withLock { $0.parts.append(part) }
        return part
    }

    /// One transfer ended (done, failed or given up).
    func partFinished() { state.withLock { $0.done += 1 } }

    func finish() {
        ticker.withLock { $0?.cancel() }
        guard state.withLock({ state in defer { state.finished = true }; return !state.finished }) else { return }
        draw()
        io.progress("\n")
    }

    private func draw() {
        let (parts, done) = state.withLock { ($0.parts, $0.done) }
        let progress = parts.map(\.progress)
        let received = progress.reduce(0) { $0 + $1.done }
        // A total only when every transfer has started and told its size.
        let sizes = progress.compactMap(\.total)
        let total = parts.count == transfers && sizes.count == parts.count ? sizes.reduce(0, +) : nil
        let counts = "  \(done)/\(transfers) done, \(parts.count - done) running"
        io.progress(ProgressMeter.line(done: received, total: total, since: started, bar: bar, suffix: counts))
    }
}
