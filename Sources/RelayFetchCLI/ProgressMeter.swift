import Foundation
import Locking
import RelayFetch

/// The progress of one transfer on standard error, which must be a terminal: curl's meter
/// reduced to one line (percent, bytes, speed, time) or, with `--progress-bar`, a bar of #.
/// Rewritten in place a few times a second; `finish()` ends the line. Under -Z each transfer
/// has one that does not draw, and `ParallelProgressMeter` draws their sum.
final class ProgressMeter: Sendable {
    private struct State {
        var received = 0
        var expected: Int?
        var upload: RequestBodyStream?
        var finished = false
    }

    private let state = Locked(State())
    private let bar: Bool
    private let io: CommandIO
    private let started = Date()
    private let ticker = Locked<Task<Void, Never>?>(nil)

    /// `draws` false: a part of a `ParallelProgressMeter`, which reads `progress` and draws.
    init(bar: Bool, io: CommandIO, draws: Bool = true) {
        self.bar = bar
        self.io = io
        guard draws else {
            state.withLock { $0.finished = true }  // finish() then draws nothing
            return
        }
        ticker.withLock { $0 = Task { [weak self] in
            while !Task.isCancelled, let self {
                self.draw()
                try? await Task.sleep(nanoseconds: 250_000_000)
            }
        } }
    }

    /// Whether a meter belongs on this process's standard error: a terminal, and the body not
    /// going to that terminal too (curl's rule), and no -s or -v.
    static func wanted(silent: Bool, verbose: Bool, bodyToStandardOutput: Bool) -> Bool {
        !silent && !verbose && isatty(STDERR_FILENO) == 1 && !(bodyToStandardOutput && isatty(STDOUT_FILENO) == 1)
    }

    func expect(_ total: Int?) { state.withLock { $0.expected = total } }
    func received(_ count: Int) { state.withLock { $0.received += count } }
    /// Shows how much of `stream` went out until the answer's body starts coming.
    func watch(upload stream: RequestBodyStream?) { state.withLock { $0.upload = stream } }

    func finish() {
        ticker.withLock { $0?.cancel() }
        guard state.withLock({ state in defer { state.finished = true }; return !state.finished }) else { return }
        draw()
        io.progress("\n")
    }

    /// Bytes moved so far and how many are expected (nil: unknown): the upload's until the
    /// answer's body starts, then the body's.
    var progress: (done: Int, total: Int?) {
        let state = state.withLock { $0 }
        if let upload = state.upload, state.received == 0 { return (upload.bytesSent, upload.length) }
        return (state.received, state.expected)
    }

    private func draw() {
        let (done, total) = progress
        io.progress(Self.line(done: done, total: total, since: started, bar: bar))
    }

    /// One rewrite of the meter's line: a bar, or percent, bytes, speed and time, then `suffix`.
    static func line(done: Int, total: Int?, since started: Date, bar: Bool, suffix: String = "") -> String {
        let seconds = max(Date().timeIntervalSince(started), 0.001)
        let fraction = total.map { $0 > 0 ? min(1, Double(done) / Double($0)) : 1 }
        if bar {
            let width = 60
            let filled = Int((fraction ?? 0) * Double(width))
            return "\r" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
                + String(format: " %5.1f%%", (fraction ?? 0) * 100) + suffix
        }
        let percent = fraction.map { String(format: "%3d%%", Int($0 * 100)) } ?? "  --"
        let of = total.map { " of " + Self.bytes($0) } ?? ""
        let time = Int(seconds)
        return "\r\(percent)  \(Self.bytes(done))\(of)  \(Self.bytes(Int(Double(done) / seconds)))/s  "
            + String(format: "%d:%02d:%02d", time / 3600, time / 60 % 60, time % 60) + suffix + "   "
    }

    /// 1536 as "1.5k", as curl's meter writes sizes.
    static func bytes(_ count: Int) -> String {
        let units = ["", "k", "M", "G", "T"]
        var value = Double(count), unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(count)" : String(format: "%.1f", value) + units[unit]
    }
}
