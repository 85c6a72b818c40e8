import Foundation

/// Fixed-size byte blocks for a streamed body's chunks, handed back when the reader drops the
/// `Data` made from one and kept for the next chunk. A fresh 256 KiB block per chunk meant
/// malloc handing out memory it had just returned to the kernel: a page fault and a zeroed page
/// for every 4 KiB of body, on the thread that reads from the relay.
final class ChunkStorage: @unchecked Sendable {
    let blockSize: Int
    private let lock = NSLock()
    private var spare: [UnsafeMutableRawPointer] = []
    private let maximumSpare: Int

    init(blockSize: Int, maximumSpare: Int) {
        self.blockSize = blockSize
        self.maximumSpare = maximumSpare
    }

    deinit { for block in spare { block.deallocate() } }

    /// A block of `blockSize` bytes, a recycled one when there is one.
    func block() -> UnsafeMutableRawPointer {
        lock.withLock { spare.popLast() } ?? UnsafeMutableRawPointer.allocate(byteCount: blockSize, alignment: 16)
    }

    /// The first `count` bytes of `block` as `Data` without a copy; the block comes back here
    /// when the last copy of that `Data` goes (the storage outlives it: the deallocator holds it).
    func data(_ block: UnsafeMutableRawPointer, count: Int) -> Data {
        Data(bytesNoCopy: block, count: count, deallocator: .custom { [self] pointer, _ in recycle(pointer) })
    }

    /// Returns a block that will not be handed out as `Data`.
    func recycle(_ block: UnsafeMutableRawPointer) {
        let kept = lock.withLock {
            guard spare.count < maximumSpare else { return false }
            spare.append(block)
            return true
        }
        if !kept { block.deallocate() }
    }
}
