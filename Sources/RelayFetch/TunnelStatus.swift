import Foundation
import RelayTransport
import Locking

/// What became of one relay tunnel, shared by every transfer libcurl runs over its connection
/// (reused and multiplexed ones too), so an error on any of them can name the hop that failed or
/// cut it. Written on the transport thread, read on the curl thread.
final class TunnelStatus: Sendable {
    private struct State {
        var failure: RelayError?
        var end: TunnelEnd?
        var hopReports: [HopReport] = []
        /// Monotonic seconds when the tunnel ended abnormally (relay closed or failed), else nil.
        var abnormalEndTime: Double?
    }
    private let state = Locked(State())

    /// The chain could not be built.
    func recordFailure(_ error: RelayError) {
        state.withLock { if $0.failure == nil { $0.failure = error } }
    }

    /// The chain was built: when each hop's tunnel was open.
    func recordOpen(_ reports: [HopReport]) {
        state.withLock { $0.hopReports = reports }
    }

    /// Each hop's tunnel timing, for the transfer that opened the tunnel.
    var hopTimings: [RelayHopTiming] {
        state.withLock { $0.hopReports.map(RelayHopTiming.init) }
    }

    /// The built tunnel ended.
    func recordEnd(_ end: TunnelEnd) {
        state.withLock { state in
            guard state.end == nil else { return }
            state.end = end
            if case .clientClosed = end { return }
            state.abnormalEndTime = IdleClock.now()
        }
    }

    var snapshot: (failure: RelayError?, end: TunnelEnd?) { state.withLock { ($0.failure, $0.end) } }

    func endedAbnormally(since time: Double) -> Bool {
        state.withLock { $0.abnormalEndTime.map { $0 >= time } ?? false }
    }
}
