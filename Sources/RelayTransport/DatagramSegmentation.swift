#if canImport(Glibc)
import Glibc
#endif
internal import CLinux
import SystemIO

/// UDP generic segmentation offload (GSO, `UDP_SEGMENT`, udp(7)) for a QUIC socket's sends: a
/// run of queued datagrams of one size (the last may be shorter) goes to the kernel as one
/// message, its slots as the message's iovecs, with a control message giving the size it cuts
/// the payload at. A window of full-size packets costs one pass through the stack instead of one
/// per datagram; the datagrams on the wire are the same. Owns the message headers and control
/// buffers for one `DatagramSlots`. Loop thread only.
final class DatagramSegmentation {
    /// Segments in one message: the kernel's limit (UDP_MAX_SEGMENTS) is 64 on older kernels.
    static let maximumSegments = 64
    /// Payload bytes in one message: a UDP datagram's payload limit, before segmentation.
    static let maximumBytes = 65_507
    private let count: Int
    private let headers: UnsafeMutablePointer<rf_mmsghdr>
    private let controls: UnsafeMutableRawPointer
    /// Datagrams each prepared message carries, in order.
    private var runs: [Int] = []

    init(count: Int) {
        self.count = count
        headers = .allocate(capacity: count)
        headers.initialize(repeating: rf_mmsghdr(), count: count)
        controls = .allocate(byteCount: count * Int(RF_UDP_SEGMENT_SPACE), alignment: 8)
    }

    deinit {
        headers.deallocate()
        controls.deallocate()
    }

    /// Groups slots `first..<end` into messages of runs; returns the headers and how many.
    func prepare(_ slots: DatagramSlots, from first: Int, to end: Int) -> (UnsafeMutablePointer<rf_mmsghdr>, UInt32) {
        runs.removeAll(keepingCapacity: true)
        var start = first
        while start < end {
            let length = slots.length(start)
            var next = start + 1, bytes = length
            // A run goes on while every datagram so far had the first one's length; a shorter
            // one ends it (the kernel's last segment may be short, no other).
            while next < end, next - start < Self.maximumSegments, slots.length(next - 1) == length,
                  slots.length(next) <= length, bytes + slots.length(next) <= Self.maximumBytes {
                bytes += slots.length(next)
                next += 1
            }
            let index = runs.count
            let control = controls + index * Int(RF_UDP_SEGMENT_SPACE)
            headers[index] = rf_mmsghdr()
            headers[index].msg_hdr.msg_iov = UnsafeMutableRawPointer(slots.vector(start))
            headers[index].msg_hdr.msg_iovlen = next - start
            if next - start > 1 {  // one datagram needs no cutting
                rf_fill_udp_segment(control, UInt16(length))
                headers[index].msg_hdr.msg_control = control
                headers[index].msg_hdr.msg_controllen = Int(RF_UDP_SEGMENT_SPACE)
            }
            runs.append(next - start)
            start = next
        }
        return (headers, UInt32(runs.count))
    }

    /// How many of the first `messages` prepared messages carry more than one datagram.
    func segmented(inFirst messages: Int) -> Int { runs.prefix(messages).filter { $0 > 1 }.count }

    /// Datagrams the first `messages` prepared messages carry.
    func datagrams(inFirst messages: Int) -> Int { runs.prefix(messages).reduce(0, +) }

    /// Whether a send failed because the kernel or the device cannot segment UDP (EIO: no
    /// checksum offload on the route's device; EINVAL, ENOPROTOOPT: a kernel without UDP GSO).
    static func refused(_ error: SystemError) -> Bool {
        error.code == EIO || error.code == EINVAL || error.code == ENOPROTOOPT
    }
}
