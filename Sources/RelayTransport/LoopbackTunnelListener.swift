#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SystemIO

/// A TCP listener on 127.0.0.1 through which a client library in this process (libcurl) hands
/// us connections. The client's sockets come from `makeClientSocket`, each bound to a port of
/// its own first, so the peer port of an accepted connection says exactly which request opened
/// it; a connection from any other socket is refused. Loopback TCP rather than an abstract Unix
/// socket because libcurl 7.88 reuses a connection only when it knows the peer's IP address.
package final class LoopbackTunnelListener {
    /// The port libcurl connects to (on 127.0.0.1).
    package let port: UInt16
    private let loop: EventLoop
    private let fd: Int32

    /// Starts listening on the loop; `onAccept` gets each accepted socket (non-blocking, now owned
    /// by the callee) and the name of the client socket (`makeClientSocket`). Call from the loop thread.
    package init(loop: EventLoop, onAccept: @escaping (Int32, String) -> Void) throws(SystemError) {
        self.loop = loop
        let fd = try systemCall("socket") { socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        self.fd = fd
        do {
            try Self.bindLoopback(fd)
            try systemCall("listen") { listen(fd, 128) }
            port = try Self.localPort(fd)
            try loop.register(fd, writable: false) { readable, _, _ in
                guard readable else { return }
                while true {
                    var peer = sockaddr_in()
                    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
                    let client = withUnsafeMutablePointer(to: &peer) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(fd, $0, &length) }
                    }
                    if client < 0 { return }
                    _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
                    _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                    Self.sendWithoutDelay(client)
                    let fromLoopback = peer.sin_addr.s_addr == in_addr_t(INADDR_LOOPBACK).bigEndian
                    onAccept(client, fromLoopback ? Self.name(port: UInt16(bigEndian: peer.sin_port)) : "")
                }
            }
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    /// Stops listening. Call from the loop thread.
    package func close() {
        loop.deregister(fd)
        Glibc.close(fd)
    }

    /// Makes a client socket bound to a loopback port of its own; returns it and its name.
    package static func makeClientSocket() throws(SystemError) -> (fd: Int32, name: String) {
        let client = try systemCall("socket") { socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        do {
            try bindLoopback(client)
            sendWithoutDelay(client)
            return (client, name(port: try localPort(client)))
        } catch {
            Glibc.close(client)
            throw error
        }
    }

    private static func name(port: UInt16) -> String { "127.0.0.1:\(port)" }

    /// Nagle off, on both ends: with it, a second small write (HTTP/2 frames, a POST body after
    /// its headers) waits for the first one's ACK, which loopback delays up to 40 ms.
    private static func sendWithoutDelay(_ fd: Int32) {
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Binds `fd` to 127.0.0.1 on a port the kernel picks.
    private static func bindLoopback(_ fd: Int32) throws(SystemError) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(INADDR_LOOPBACK).bigEndian
        try withUnsafePointer(to: &address) { pointer throws(SystemError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw throws(SystemError) in
                _ = try systemCall("bind") { bind(fd, raw, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
    }

    private static func localPort(_ fd: Int32) throws(SystemError) -> UInt16 {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try withUnsafeMutablePointer(to: &address) { pointer throws(SystemError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw throws(SystemError) in
                _ = try systemCall("getsockname") { getsockname(fd, raw, &length) }
            }
        }
        return UInt16(bigEndian: address.sin_port)
    }
}
