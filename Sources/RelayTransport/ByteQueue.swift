#if canImport(Glibc)
import Glibc
#endif

/// Bytes waiting for a non-blocking socket, oldest first. Sent bytes are dropped by moving a
/// start index, not by shifting the rest down (`removeFirst` on a megabyte per partial send
/// made a busy tunnel quadratic); the storage is compacted only once most of it is sent.
struct ByteQueue {
    private var storage: [UInt8] = []
    private var start = 0

    var isEmpty: Bool { start == storage.count }
    var count: Int { storage.count - start }

    mutating func append(_ bytes: [UInt8]) {
        if isEmpty {
            // The common case on a fast path: nothing waits, so the new bytes become the storage.
            storage = bytes
            start = 0
        } else {
            storage.append(contentsOf: bytes)
        }
    }

    enum DrainResult { case drained, wouldBlock, failed(Int32) }

    /// Sends as much as `fd` takes now; EINTR is retried, EAGAIN ends the attempt.
    mutating func drain(into fd: Int32) -> DrainResult {
        while !isEmpty {
            let sent = storage.withUnsafeBytes { send(fd, $0.baseAddress! + start, $0.count - start, Int32(MSG_NOSIGNAL)) }
            if sent > 0 {
                start += sent
                continue
            }
            if sent < 0 && errno == EINTR { continue }
            if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                compact()
                return .wouldBlock
            }
            return .failed(sent < 0 ? errno : EPIPE)
        }
        storage.removeAll(keepingCapacity: false)
        start = 0
        return .drained
    }

    private mutating func compact() {
        guard start > 0, start >= storage.count / 2 else { return }
        storage.removeFirst(start)
        start = 0
    }
}
