#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The UDP socket under one QUIC connection: non-blocking, connected to the relay's address so
/// only its datagrams arrive (and ICMP errors surface as ECONNREFUSED). Owns the descriptor and
/// its event-loop registration. Loop thread only.
final class QUICSocket {
    private let loop: EventLoop
    private(set) var fd: Int32 = -1
    /// The socket's own address and the relay's, as ngtcp2 wants them for its path.
    private var localAddress = sockaddr_storage()
    private var localLength = socklen_t(0)
    private var remoteAddress = sockaddr_storage()
    private var remoteLength = socklen_t(0)
    private var wantsWritable = false

    init(loop: EventLoop) { self.loop = loop }

    deinit { if fd >= 0 { Glibc.close(fd) } }  // may run off the loop: no deregistering here

    /// Opens the socket to `address` (a sockaddr) and watches it; `handler` runs on readiness.
    func open(to address: Data, handler: @escaping (_ readable: Bool, _ writable: Bool) -> Void) throws(SystemError) {
        let family = address.withUnsafeBytes { Int32($0.load(as: sockaddr.self).sa_family) }
        fd = try systemCall("socket") { socket(family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
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

    /// Reads one datagram into `buffer`; nil when none is waiting.
    func receive(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int? {
        let socketFD = fd
        do {
            return try systemCall("recv") { recv(socketFD, buffer.baseAddress, buffer.count, 0) }
        } catch where error.wouldBlock {
            return nil
        }
    }

    /// Sends one datagram; false when the socket buffer is full (the caller retries when writable).
    func send(_ packet: UnsafeRawBufferPointer) throws(SystemError) -> Bool {
        let socketFD = fd
        do {
            try systemCall("send") { Glibc.send(socketFD, packet.baseAddress, packet.count, Int32(MSG_NOSIGNAL)) }
            return true
        } catch where error.wouldBlock {
            return false
        }
    }

    /// Asks for (or stops asking for) a writable event.
    func watchWritable(_ writable: Bool) {
        guard fd >= 0, writable != wantsWritable else { return }
        wantsWritable = writable
        loop.update(fd, writable: writable)
    }

    func close() {
        guard fd >= 0 else { return }
        loop.deregister(fd)
        Glibc.close(fd)
        fd = -1
    }
}
