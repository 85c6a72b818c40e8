import Foundation

extension Process {
    /// Ends a server the test started: SIGTERM (SIGKILL when not `graceful`), then SIGKILL if it
    /// is still running after 5 s. Polls rather than `waitUntilExit`, which can block forever on
    /// a test's cooperative thread.
    func stopServer(graceful: Bool = true) {
        guard isRunning else { return }
        kill(processIdentifier, graceful ? SIGTERM : SIGKILL)
        let deadline = Date().addingTimeInterval(5)
        while isRunning && Date() < deadline { usleep(10_000) }
        if isRunning { kill(processIdentifier, SIGKILL) }
    }
}
