import Foundation
import Locking
internal import CCurl

/// The race of one exchange's QUIC and TCP attempts under `--origin-protocol auto`: QUIC starts
/// at once, TCP after the head start (`http3FallbackDelay`, or at once when QUIC failed), and
/// the first whose connection is up claims the request, so it is sent once: QUIC when its
/// connection takes the stream, TCP when libcurl's connection is up and about to send (libcurl's
/// pre-request callback). The loser sends nothing. Thread-safe: QUIC claims on the transport's
/// loop, TCP on libcurl's thread.
final class OriginRace: Sendable {
    enum Side: Sendable { case quic, tcp }
    private let state = Locked<(winner: Side?, tcpStartsNow: Bool)>((nil, false))
    /// Told (on libcurl's thread) when TCP claimed the request: the QUIC side gives it up.
    private let tcpWon = Locked<(@Sendable () -> Void)?>(nil)

    func whenTCPWins(_ action: @escaping @Sendable () -> Void) { tcpWon.withLock { $0 = action } }

    /// Claims the request for TCP; true when TCP has it (QUIC then gives it up).
    func claimForTCP() -> Bool {
        guard claim(.tcp) else { return false }
        tcpWon.withLock { $0 }?()
        return true
    }

    var winner: Side? { state.withLock { $0.winner } }

    /// True when `side` has the request (it claimed it now or before); false when the other has.
    func claim(_ side: Side) -> Bool {
        let won = state.withLock { state -> Bool in
            if state.winner == nil { state.winner = side }
            return state.winner == side
        }
        return won
    }

    /// QUIC failed before it claimed the request: TCP need not wait out the head start.
    func startTCPNow() { state.withLock { $0.tcpStartsNow = true } }

    /// Waits out the head start (cut short by `startTCPNow`); true when TCP should still try,
    /// false when QUIC already has the request.
    func waitForTCPTurn(headStart: Double) async -> Bool {
        let deadline = Date().addingTimeInterval(headStart)
        // Polled in short steps: a timer to cancel would need a continuation shared with the
        // loop; 5 ms is well inside the head start's own precision.
        while Date() < deadline, state.withLock({ $0.winner == nil && !$0.tcpStartsNow }) {
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
        return winner != .quic
    }
}

/// The TCP attempt lost the race: QUIC had the request before libcurl's connection was up.
struct LostOriginRace: Error {}

extension CurlTransfer {
    /// Has libcurl ask the request's race before it sends the request on a connection that is
    /// up (or reused).
    func claimBeforeSending() {
        _ = rf_curl_easy_setopt_prereq(easy, curlPrerequisite)
        _ = rf_curl_easy_setopt_ptr(easy, CURLOPT_PREREQDATA, unretainedPointer)
    }
}

/// libcurl's pre-request callback: TCP's connection is up; the request goes only if TCP won.
private func curlPrerequisite(_ context: UnsafeMutableRawPointer?, _ primary: UnsafeMutablePointer<CChar>?, _ local: UnsafeMutablePointer<CChar>?,
                              _ primaryPort: Int32, _ localPort: Int32) -> Int32 {
    guard let context else { return CURL_PREREQFUNC_OK }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    guard let race = transfer.request.originRace else { return CURL_PREREQFUNC_OK }
    return race.claimForTCP() ? CURL_PREREQFUNC_OK : CURL_PREREQFUNC_ABORT
}
