import Foundation
import RelayTransport
internal import CCurl

/// Runs a session's libcurl multi handle on a thread of its own. Connections, TLS sessions and
/// libcurl's caches live in this multi handle, so they belong to one session only.
// @unchecked: `lock` guards the queues and `stopping`; the multi handle and `running` belong to the
// curl thread (`run()`), the only one that calls into libcurl's multi API after init.
final class CurlEngine: @unchecked Sendable {
    private static let globalInit: Void = { _ = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    private let multi: UnsafeMutableRawPointer
    private let lock = NSLock()
    private var incoming: [CurlTransfer] = []
    /// Transfers whose reader caught up (unpause) or went away (stop), for the curl thread.
    private var resumed: [CurlTransfer] = []
    private var cancelled: [CurlTransfer] = []
    private var running: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    private var stopping = false
    private let thread = SessionThread(name: "relayfetch.curl")

    /// `maximumConnectionsPerHost` and `maximumConnections` bound the connections (each one
    /// relay tunnel) libcurl opens; beyond them it queues transfers for an existing connection.
    init(maximumConnectionsPerHost: Int, maximumConnections: Int) {
        Self.globalInit
        multi = curl_multi_init()!
        _ = rf_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        _ = rf_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, maximumConnectionsPerHost))
        _ = rf_curl_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, max(1, maximumConnections))
        _ = rf_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(1, maximumConnections))
        thread.start { [self] in run() }  // the thread keeps the engine alive until shutdown()
    }

    /// Whether the curl thread has closed its connections and run its last libcurl call.
    var hasEnded: Bool { thread.hasEnded }

    /// After `shutdown()`: waits (up to `timeout` seconds) until the curl thread has closed its
    /// connections and ended; false at once when called on that thread.
    @discardableResult
    func waitUntilEnded(timeout: Double) -> Bool { thread.waitUntilEnded(timeout: timeout) }

    /// Runs `transfer` to completion.
    func perform(_ transfer: CurlTransfer) async throws -> (Data, HTTPResponse) {
        // A pipe the request body comes from wakes the transfer once its writer caught up.
        transfer.request.bodyStream?.onReadable.withLock { $0 = { [weak self, weak transfer] in
            if let self, let transfer { self.resume(transfer) }
        } }
        return try await withCheckedThrowingContinuation { continuation in
            transfer.continuation = continuation
            // Waking the multi handle under the lock: once `stopping` is seen, it may be freed.
            lock.lock()
            defer { lock.unlock() }
            guard !stopping else {
                continuation.resume(throwing: FetchError(.transfer("the session was invalidated")))
                return
            }
            incoming.append(transfer)
            curl_multi_wakeup(multi)
        }
    }

    /// Unpauses `transfer` (its reader has room again). Any thread.
    func resume(_ transfer: CurlTransfer) { enqueue(transfer, into: \.resumed) }

    /// Stops `transfer` if it is still running; it fails as cancelled. Any thread.
    func cancel(_ transfer: CurlTransfer) { enqueue(transfer, into: \.cancelled) }

    private func enqueue(_ transfer: CurlTransfer, into queue: ReferenceWritableKeyPath<CurlEngine, [CurlTransfer]>) {
        lock.lock()
        defer { lock.unlock() }
        guard !stopping else { return }
        self[keyPath: queue].append(transfer)
        curl_multi_wakeup(multi)
    }

    func shutdown() {
        lock.lock()
        defer { lock.unlock() }
        guard !stopping else { return }
        stopping = true
        curl_multi_wakeup(multi)
    }

    private func run() {
        while true {
            lock.lock()
            let newTransfers = incoming
            incoming.removeAll()
            let toResume = resumed, toCancel = cancelled
            resumed.removeAll()
            cancelled.removeAll()
            let stop = stopping
            lock.unlock()
            if stop {
                for transfer in newTransfers { transfer.continuation?.resume(throwing: FetchError(.transfer("session ended"))) }
                break
            }
            for transfer in newTransfers {
                running[transfer.easy] = transfer
                curl_multi_add_handle(multi, transfer.easy)
            }
            for transfer in toCancel where running[transfer.easy] === transfer {
                running[transfer.easy] = nil
                curl_multi_remove_handle(multi, transfer.easy)
                let continuation = transfer.continuation
                transfer.continuation = nil
                continuation?.resume(throwing: FetchError(.transfer("the reader stopped reading the body")))
            }
            for transfer in toResume where running[transfer.easy] === transfer {
                let bodyWaited = transfer.takeRequestBodyWait()
                guard transfer.pausedForReader || bodyWaited else { continue }
                transfer.pausedForReader = false
                // libcurl hands over the bytes it held at once (the write callback may pause again).
                _ = rf_curl_easy_unpause(transfer.easy)
            }
            var stillRunning: Int32 = 0
            curl_multi_perform(multi, &stillRunning)
            // Readers of streamed bodies get what this turn delivered, in one wake-up each.
            for transfer in running.values { transfer.sink?.flush() }
            collectFinished()
            curl_multi_poll(multi, nil, 0, 1000, nil)
        }
        for (easy, transfer) in running {
            curl_multi_remove_handle(multi, easy)
            transfer.continuation?.resume(throwing: FetchError(.transfer("session ended")))
        }
        running.removeAll()
        curl_multi_cleanup(multi)  // closes the session's connections; the thread ends after this
    }

    private func collectFinished() {
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let code = message.pointee.data.result
            curl_multi_remove_handle(multi, easy)
            guard let transfer = running.removeValue(forKey: easy) else { continue }
            let result = transfer.result(code)
            let continuation = transfer.continuation
            transfer.continuation = nil
            continuation?.resume(with: result.mapError { $0 as Error })
        }
    }
}
