#if canImport(Glibc)
import Glibc
#endif
import SystemIO

/// Bytes waiting for a non-blocking socket, oldest first, copied into 64 KiB blocks that are
/// reused once sent. A queue that held an HTTP/2 window as one array grew it by doubling (8 MiB of
/// storage plus the old 4 MiB while copying: the peak of a whole bulk download); keeping the
/// arrays as the layers handed them over (up to 256 KiB each) scattered large blocks over the
/// allocator's heaps instead. Blocks bound both: memory follows what waits, in steps of 64 KiB,
/// and a busy tunnel allocates nothing. One `sendmsg` gathers up to `gatherLimit` blocks.
struct ByteQueue {
    static let blockSize = 64 * 1024
    /// Most blocks one `sendmsg` carries (the kernel's limit is 1024).
    static let gatherLimit = 32
    /// Emptied blocks kept for reuse.
    private static let spareLimit = 8

    /// Each block has `blockSize` of capacity; its count is how much of it is filled.
    private var blocks: [[UInt8]] = []
    /// Index of the oldest block not wholly sent.
    private var head = 0
    /// Bytes of `blocks[head]` already sent.
    private var offset = 0
    private var spare: [[UInt8]] = []
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    mutating func append(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        bytes.withUnsafeBufferPointer { source in
            var copied = 0
            while copied < source.count {
                if blocks.isEmpty || blocks[blocks.count - 1].count == Self.blockSize {
                    blocks.append(spare.popLast() ?? Self.newBlock())
                }
                let last = blocks.count - 1
                let take = min(Self.blockSize - blocks[last].count, source.count - copied)
                blocks[last].append(contentsOf: UnsafeBufferPointer(rebasing: source[copied..<copied + take]))
                copied += take
            }
        }
        count += bytes.count
    }

    private static func newBlock() -> [UInt8] {
        var block: [UInt8] = []
        block.reserveCapacity(blockSize)
        return block
    }

    enum DrainResult { case drained, wouldBlock, failed(Int32) }

    /// Sends as much as `fd` takes now; EINTR is retried, EAGAIN ends the attempt.
    mutating func drain(into fd: Int32) -> DrainResult {
        while !isEmpty {
            do {
                guard let sent = try nonBlockingCall("sendmsg", { sendSome(fd) }) else { return .wouldBlock }
                guard sent > 0 else { return .failed(EPIPE) }
                consume(sent)
            } catch {
                return .failed(error.code)
            }
        }
        return .drained
    }

    /// One `sendmsg` of the oldest blocks. The `iovec`s point into the blocks' storage only while
    /// the nested `withUnsafeBytes` scopes around the system call keep it pinned.
    private func sendSome(_ fd: Int32) -> Int {
        var vectors = [iovec](repeating: iovec(), count: min(blocks.count, head + Self.gatherLimit) - head)
        return gather(fd, block: head, vectors: &vectors)
    }

    private func gather(_ fd: Int32, block: Int, vectors: inout [iovec]) -> Int {
        guard block - head < vectors.count else {
            return vectors.withUnsafeMutableBufferPointer { buffer in
                var message = msghdr()
                message.msg_iov = buffer.baseAddress
                message.msg_iovlen = buffer.count
                return sendmsg(fd, &message, Int32(MSG_NOSIGNAL))
            }
        }
        return blocks[block].withUnsafeBytes { bytes in
            let skip = block == head ? offset : 0
            vectors[block - head] = iovec(iov_base: UnsafeMutableRawPointer(mutating: bytes.baseAddress! + skip), iov_len: bytes.count - skip)
            return gather(fd, block: block + 1, vectors: &vectors)
        }
    }

    /// Drops `sent` bytes from the front; each block wholly sent goes back to the spares.
    private mutating func consume(_ sent: Int) {
        count -= sent
        var left = sent
        while left > 0 {
            let remaining = blocks[head].count - offset
            if left < remaining {
                offset += left
                return
            }
            left -= remaining
            retire(head)
            head += 1
            offset = 0
        }
        if count == 0 {
            blocks.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64 && head * 2 >= blocks.count {
            blocks.removeFirst(head)
            head = 0
        }
    }

    private mutating func retire(_ index: Int) {
        var block: [UInt8] = []
        swap(&block, &blocks[index])
        guard spare.count < Self.spareLimit, block.capacity >= Self.blockSize else { return }
        block.removeAll(keepingCapacity: true)
        spare.append(block)
    }
}
