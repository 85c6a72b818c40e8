#if canImport(Glibc)
import Glibc
#endif
internal import CLinux

/// UDP generic receive offload (GRO, `UDP_GRO`, udp(7)) for a QUIC socket's reads: the kernel
/// may hand over several datagrams of one sender, of one size (the last may be shorter), as one
/// message with a control message giving that size; this cuts them apart again. Its slots are a
/// whole UDP payload each, fewer of them than without GRO; one set serves every socket of a loop
/// (`QUICReceiveSlots`). Owns the slots and their control buffers. Loop thread only.
final class DatagramCoalescing {
    static let count = 16
    static let size = 65_535
    let slots = DatagramSlots(count: DatagramCoalescing.count, size: DatagramCoalescing.size)
    private let controls: UnsafeMutableRawPointer

    init() {
        controls = .allocate(byteCount: Self.count * Int(RF_UDP_GRO_SPACE), alignment: 8)
        for index in 0..<Self.count { slots.headers[index].msg_hdr.msg_control = controls + index * Int(RF_UDP_GRO_SPACE) }
    }

    deinit { controls.deallocate() }

    /// Gives every slot its control room again: the kernel shrinks it to what it wrote.
    func prepare() {
        for index in 0..<Self.count { slots.headers[index].msg_hdr.msg_controllen = Int(RF_UDP_GRO_SPACE) }
    }

    /// The datagram size message `index` is cut at: the kernel's, or its whole length when it
    /// carries one datagram (no control message).
    func segmentSize(_ index: Int) -> Int {
        let header = slots.headers[index].msg_hdr
        let size = Int(rf_udp_gro_size(header.msg_control, header.msg_controllen))
        return size > 0 ? size : Int(slots.headers[index].msg_len)
    }

    /// Turns GRO on for `fd`; false when the kernel has no UDP GRO (the socket reads plainly).
    static func enable(on fd: Int32) -> Bool {
        var one: Int32 = 1
        return setsockopt(fd, RF_SOL_UDP, RF_UDP_GRO, &one, socklen_t(MemoryLayout<Int32>.size)) == 0
    }
}
