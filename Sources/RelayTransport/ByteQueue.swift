#if canImport(Glibc)
import Glibc
#endif

/// Bytes waiting for a non-blocking socket, oldest first, kept as the arrays they arrived in.
/// Appending never copies or grows a contiguous buffer (a queue that held a 4 MiB HTTP/2 window
/// as one array grew by doubling: 8 MiB of storage plus the old 4 MiB while copying, the peak of
/// a whole bulk download); sending gathers up to `gatherLimit` pieces into one `sendmsg`, and a
/// piece is released as soon as it is sent.
struct ByteQueue {
    private var pieces: [[UInt8]] = []
    /// Index of the oldest piece not wholly sent; pieces before it are empty husks.
    private var head = 0
    /// Bytes of `pieces[head]` already sent.
    private var offset = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// Most pieces one `sendmsg` carries (the kernel's limit is 1024).
    static let gatherLimit = 64

    mutating func append(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        // A layer may hand over a short delivery in a buffer sized for a long one (a TLS record
        // in a 256 KiB read buffer): kept as is, a megabyte of them would pin sixteen.
        pieces.append(bytes.capacity > 2 * bytes.count + 4096 ? Self.compactCopy(bytes) : bytes)
        count += bytes.count
    }

    /// A copy in storage of its own size (`Array(bytes)` would share the oversized storage).
    private static func compactCopy(_ bytes: [UInt8]) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: bytes.count) { buffer, filled in
            filled = bytes.withUnsafeBufferPointer { buffer.update(fromContentsOf: $0) }
        }
    }

    enum DrainResult { case drained, wouldBlock, failed(Int32) }

    /// Sends as much as `fd` takes now; EINTR is retried, EAGAIN ends the attempt.
    mutating func drain(into fd: Int32) -> DrainResult {
        while !isEmpty {
            let sent = sendSome(fd)
            if sent > 0 {
                consume(sent)
                continue
            }
            if sent < 0 && errno == EINTR { continue }
            if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return .wouldBlock }
            return .failed(sent < 0 ? errno : EPIPE)
        }
        return .drained
    }

    /// One `sendmsg` of the oldest pieces. The arrays are pinned only for the call: `iovec`s point
    /// into their storage while `withUnsafeBufferPointer` scopes nest around the system call.
    private func sendSome(_ fd: Int32) -> Int {
        let last = min(pieces.count, head + Self.gatherLimit)
        var vectors = [iovec](repeating: iovec(), count: last - head)
        return gather(fd, index: head, upTo: last, vectors: &vectors)
    }

    private func gather(_ fd: Int32, index: Int, upTo last: Int, vectors: inout [iovec]) -> Int {
        guard index < last else {
            return vectors.withUnsafeMutableBufferPointer { buffer in
                var message = msghdr()
                message.msg_iov = buffer.baseAddress
                message.msg_iovlen = buffer.count
                return sendmsg(fd, &message, Int32(MSG_NOSIGNAL))
            }
        }
        return pieces[index].withUnsafeBytes { bytes in
            let skip = index == head ? offset : 0
            vectors[index - head] = iovec(iov_base: UnsafeMutableRawPointer(mutating: bytes.baseAddress! + skip), iov_len: bytes.count - skip)
            return gather(fd, index: index + 1, upTo: last, vectors: &vectors)
        }
    }

    /// Drops `sent` bytes from the front, releasing each piece once it is wholly sent.
    private mutating func consume(_ sent: Int) {
        count -= sent
        var left = sent
        while left > 0 {
            let remaining = pieces[head].count - offset
            if left < remaining {
                offset += left
                return
            }
            left -= remaining
            pieces[head] = []
            head += 1
            offset = 0
        }
        if head == pieces.count {
            pieces.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64 && head * 2 >= pieces.count {
            pieces.removeFirst(head)
            head = 0
        }
    }
}
