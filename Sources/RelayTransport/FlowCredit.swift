/// Receive-side flow control of one tunnel: bytes are given back to the relay's window as the
/// reader takes them. While the reader is paused they are owed, and given back when it resumes,
/// so a slow reader stops the relay instead of making us buffer without bound.
struct FlowCredit {
    private(set) var paused = false
    private var owed = 0

    /// Bytes to give back now for `count` just received (none while paused: they are owed).
    mutating func received(_ count: Int) -> Int {
        guard paused else { return count }
        owed += count
        return 0
    }

    /// Pauses or resumes; returns the bytes to give back now (what was owed, on resuming).
    mutating func setPaused(_ paused: Bool) -> Int {
        self.paused = paused
        return paused ? 0 : settle()
    }

    /// Everything still owed, now due (the reader resumed, or the stream is gone).
    mutating func settle() -> Int {
        defer { owed = 0 }
        return owed
    }
}
