#if canImport(Glibc)
import Glibc
#endif
import Foundation
internal import CLinux
import SystemIO

/// The UDP socket under one QUIC connection: non-blocking, connected to the relay's address so
/// only its datagrams arrive (and ICMP errors surface as ECONNREFUSED). Reads take every datagram
/// waiting, up to `batch`, in one recvmmsg call and hand them out one by one; sends queue the
/// packets of one write and `flush` hands them to the kernel in one sendmmsg call, runs of
/// equal-size packets as one segmented message each (UDP GSO) unless the kernel refuses it.
/// Owns the descriptor, its event-loop registration and the send slots; reads go into the slots
/// the loop's sockets share (`QUICReceiveSlots`). Loop thread only.
final class QUICSocket {
    /// Datagrams one recvmmsg or sendmmsg call takes, and the room for each: the largest UDP
    /// payload we announce (`QUICClientSetup.largestDatagram`); a longer one received is dropped.
    static let batch = 64
    private let loop: EventLoop
    /// Whether reads ask for receive offload: false when forced off or the kernel has no UDP GRO.
    private var coalesces: Bool
    /// The loop's receive slots: this socket's datagrams are in them while `holder` is this socket.
    private var shared: QUICReceiveSlots { loop.quicReceiveSlots }
    private var coalescing: DatagramCoalescing? { coalesces ? shared.coalescing : nil }
    private var incoming: DatagramSlots { coalesces ? shared.coalescing.slots : shared.plain }
    /// Bytes of the current message already handed out (a coalesced one holds several datagrams).
    private var offsetInMessage = 0
    /// Messages received that held more than one datagram (coalesced by the kernel).
    private(set) var coalescedMessages = 0
    /// The largest packet ngtcp2 writes: its max_tx_udp_payload_size, left at the default (1452),
    /// which path MTU discovery does not go past. A longer one would go by send(2) on its own.
    static let largestSent = 1452
    /// 64 x 1452 bytes: sends stay queued across turns (a full socket buffer), so each socket has its own.
    private let outgoing = DatagramSlots(count: QUICSocket.batch, size: QUICSocket.largestSent)
    /// Datagrams the last recvmmsg took, and the next to hand out.
    private var received = 0
    private var nextReceived = 0
    /// Datagrams queued to send, and the first the kernel has not taken yet.
    private var queued = 0
    private var nextQueued = 0
    private(set) var fd: Int32 = -1
    /// The socket's own address and the relay's, as ngtcp2 wants them for its path.
    private var localAddress = sockaddr_storage()
    private var localLength = socklen_t(0)
    private var remoteAddress = sockaddr_storage()
    private var remoteLength = socklen_t(0)
    private var wantsWritable = false
    /// Nil when sends go one message per datagram: forced off, or refused by the kernel.
    private var segmentation: DatagramSegmentation?
    /// Messages sent that carried more than one datagram (segmented by the kernel).
    private(set) var segmentedMessages = 0

    /// Whether sockets segment their sends unless told otherwise: on, but for
    /// `RELAYFETCH_UDP_GSO=0` in the environment (to compare, or to rule the offload out).
    static let segmentsByDefault = ProcessInfo.processInfo.environment["RELAYFETCH_UDP_GSO"] != "0"

    /// Likewise for receive offload: `RELAYFETCH_UDP_GRO=0` turns it off.
    static let coalescesByDefault = ProcessInfo.processInfo.environment["RELAYFETCH_UDP_GRO"] != "0"

    init(loop: EventLoop, segmentation: Bool = QUICSocket.segmentsByDefault, coalescing: Bool = QUICSocket.coalescesByDefault) {
        self.loop = loop
        self.segmentation = segmentation ? DatagramSegmentation(count: Self.batch) : nil
        coalesces = coalescing
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }  // may run off the loop: no deregistering here

    /// Opens the socket to `address` (a sockaddr) and watches it; `handler` runs on readiness.
    func open(to address: Data, handler: @escaping (_ readable: Bool, _ writable: Bool) -> Void) throws(SystemError) {
        let family = address.withUnsafeBytes { Int32($0.load(as: sockaddr.self).sa_family) }
        fd = try systemCall("socket") { socket(family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        if coalesces, !DatagramCoalescing.enable(on: fd) { coalesces = false }
        remoteLength = socklen_t(address.count)
        withUnsafeMutableBytes(of: &remoteAddress) { target in address.withUnsafeBytes { target.copyMemory(from: $0) } }
        let socketFD = fd
        try withUnsafePointer(to: &remoteAddress) { pointer throws(SystemError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { remote throws(SystemError) in
                _ = try systemCall("connect") { Glibc.connect(socketFD, remote, remoteLength) }
            }
        }
        localLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        try withUnsafeMutablePointer(to: &localAddress) { pointer throws(SystemError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { local throws(SystemError) in
                _ = try systemCall("getsockname") { getsockname(socketFD, local, &localLength) }
            }
        }
        try loop.register(fd, writable: false) { readable, writable, _ in handler(readable, writable) }
    }

    /// Calls `body` with the socket's own address and the relay's (after `open`).
    func withAddresses(_ body: (UnsafePointer<sockaddr>, socklen_t, UnsafePointer<sockaddr>, socklen_t) -> Void) {
        withUnsafePointer(to: localAddress) { local in
            withUnsafePointer(to: remoteAddress) { remote in
                local.withMemoryRebound(to: sockaddr.self, capacity: 1) { local in
                    remote.withMemoryRebound(to: sockaddr.self, capacity: 1) { remote in body(local, localLength, remote, remoteLength) }
                }
            }
        }
    }

    /// Copies the next datagram into `buffer`; nil when none is waiting.
    func receive(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int? {
        let incoming = incoming, coalescing = coalescing
        while true {
            // Until the socket has none left (EAGAIN): datagrams that arrived while the last batch
            // was processed are taken in this wake-up too, not in one of their own. Slots another
            // socket read into since hold none of ours.
            if nextReceived == received || shared.holder != ObjectIdentifier(self), try !readBatch() { return nil }
            let index = nextReceived
            let message = incoming.received(index)
            guard !incoming.truncated(index) else {  // longer than a slot
                nextReceived += 1
                continue
            }
            let segment = coalescing?.segmentSize(index) ?? message.count
            let start = offsetInMessage
            let count = min(segment, message.count - start)
            if start == 0 && count < message.count { coalescedMessages += 1 }
            offsetInMessage += count
            if offsetInMessage >= message.count {
                nextReceived += 1
                offsetInMessage = 0
            }
            let copied = min(count, buffer.count)
            buffer.baseAddress!.copyMemory(from: message.baseAddress! + start, byteCount: copied)
            return copied
        }
    }

    /// Takes every waiting datagram, up to a batch; false when none was waiting.
    private func readBatch() throws(SystemError) -> Bool {
        received = 0
        nextReceived = 0
        offsetInMessage = 0
        shared.holder = ObjectIdentifier(self)
        coalescing?.prepare()
        let socketFD = fd, headers = incoming.headers, slots = UInt32(incoming.count)
        do {
            received = Int(try systemCall("recvmmsg") { rf_recvmmsg(socketFD, headers, slots, Int32(MSG_DONTWAIT)) })
        } catch where error.wouldBlock {
            return false
        }
        return received > 0
    }

    /// Queues one datagram for `flush`; false when the queue is full and the socket buffer too
    /// (the caller retries when writable).
    func send(_ packet: UnsafeRawBufferPointer) throws(SystemError) -> Bool {
        if queued == Self.batch, try !flush() { return false }
        guard packet.count <= outgoing.size else {  // ngtcp2 writes `largestSent` bytes at most: not expected
            let socketFD = fd
            do {
                try systemCall("send") { Glibc.send(socketFD, packet.baseAddress, packet.count, Int32(MSG_NOSIGNAL)) }
                return true
            } catch where error.wouldBlock {
                return false
            }
        }
        outgoing.fill(queued, with: packet)
        queued += 1
        return true
    }

    /// Hands the queued datagrams to the kernel; false when its buffer filled first (the rest
    /// stay queued: flush again when writable).
    func flush() throws(SystemError) -> Bool {
        let socketFD = fd, headers = outgoing.headers
        while nextQueued < queued {
            let first = nextQueued, count = UInt32(queued - nextQueued)
            do {
                if let segmentation {
                    let (messages, prepared) = segmentation.prepare(outgoing, from: first, to: queued)
                    let sent = Int(try systemCall("sendmmsg") { rf_sendmmsg(socketFD, messages, prepared, Int32(MSG_NOSIGNAL)) })
                    let carried = segmentation.datagrams(inFirst: sent)
                    segmentedMessages += segmentation.segmented(inFirst: sent)
                    nextQueued += carried
                } else {
                    nextQueued += Int(try systemCall("sendmmsg") { rf_sendmmsg(socketFD, headers + first, count, Int32(MSG_NOSIGNAL)) })
                }
            } catch where error.wouldBlock {
                return false
            } catch where segmentation != nil && DatagramSegmentation.refused(error) {
                segmentation = nil  // no UDP GSO here: the same datagrams go one message each
            }
        }
        queued = 0
        nextQueued = 0
        return true
    }

    /// Asks for (or stops asking for) a writable event.
    func watchWritable(_ writable: Bool) {
        guard fd >= 0, writable != wantsWritable else { return }
        wantsWritable = writable
        loop.update(fd, writable: writable)
    }

    func close() {
        if shared.holder == ObjectIdentifier(self) { shared.holder = nil }  // a later socket may get this one's identifier
        guard fd >= 0 else { return }
        loop.deregister(fd)
        Glibc.close(fd)
        fd = -1
    }
}
