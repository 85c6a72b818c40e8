import Foundation
import RelayTransport

/// What became of one relay tunnel, shared by every transfer libcurl runs over its connection
/// (reused and multiplexed ones too), so an error on any of them can name the hop that failed or
/// cut it. Written on the transport thread, read on the curl thread.
final class TunnelStatus: @unchecked Sendable {
    private let lock = NSLock()
    private var failure: RelayError?
    private var end: TunnelEnd?
    private var hopReports: [HopReport] = []
    /// Monotonic seconds when the tunnel ended abnormally (relay closed or failed), else nil.
    private(set) var abnormalEndTime: Double?

    /// The chain could not be built.
    func recordFailure(_ error: RelayError) {
        lock.withLock { if failure == nil { failure = error } }
    }

    /// The chain was built: when each hop's tunnel was open.
    func recordOpen(_ reports: [HopReport]) {
        lock.withLock { hopReports = reports }
    }

    /// Each hop's tunnel timing, for the transfer that opened the tunnel.
    var hopTimings: [RelayHopTiming] {
        lock.withLock { hopReports.map(RelayHopTiming.init) }
    }

    /// The built tunnel ended.
    func recordEnd(_ end: TunnelEnd) {
        lock.withLock {
            guard self.end == nil else { return }
            self.end = end
            if case .clientClosed = end { return }
            abnormalEndTime = CurlTransfer.now()
        }
    }

    var snapshot: (failure: RelayError?, end: TunnelEnd?) { lock.withLock { (failure, end) } }

    func endedAbnormally(since time: Double) -> Bool {
        lock.withLock { abnormalEndTime.map { $0 >= time } ?? false }
    }
}
