#if canImport(Glibc)
import Glibc
#endif
internal import CLinux

/// Room for `count` datagrams of up to `size` bytes each, with the iovec and mmsghdr array that
/// recvmmsg and sendmmsg take (one buffer each). Owns the memory. Loop thread only.
final class DatagramSlots {
    let count: Int
    let size: Int
    private let bytes: UnsafeMutableRawBufferPointer
    private let vectors: UnsafeMutablePointer<iovec>
    let headers: UnsafeMutablePointer<rf_mmsghdr>

    init(count: Int, size: Int) {
        self.count = count
        self.size = size
        bytes = .allocate(byteCount: count * size, alignment: 16)
        vectors = .allocate(capacity: count)
        headers = .allocate(capacity: count)
        for index in 0..<count {
            vectors[index] = iovec(iov_base: bytes.baseAddress! + index * size, iov_len: size)
            headers[index] = rf_mmsghdr()
            headers[index].msg_hdr.msg_iov = UnsafeMutableRawPointer(vectors + index)
            headers[index].msg_hdr.msg_iovlen = 1
        }
    }

    deinit {
        bytes.deallocate()
        vectors.deallocate()
        headers.deallocate()
    }

    /// Slot `index`'s bytes: the `msg_len` a receive filled in.
    func received(_ index: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: bytes.baseAddress! + index * size, count: Int(headers[index].msg_len))
    }

    /// Whether the datagram received in slot `index` was longer than the slot.
    func truncated(_ index: Int) -> Bool { headers[index].msg_hdr.msg_flags & Int32(MSG_TRUNC) != 0 }

    /// Slot `index`'s iovec; the ones after it follow in memory (a segmented send takes a run).
    func vector(_ index: Int) -> UnsafeMutablePointer<iovec> { vectors + index }

    /// The length of the datagram queued in slot `index`.
    func length(_ index: Int) -> Int { vectors[index].iov_len }

    /// Copies `datagram` (at most `size` bytes) into slot `index` to be sent.
    func fill(_ index: Int, with datagram: UnsafeRawBufferPointer) {
        (bytes.baseAddress! + index * size).copyMemory(from: datagram.baseAddress!, byteCount: datagram.count)
        vectors[index].iov_len = datagram.count
    }
}
