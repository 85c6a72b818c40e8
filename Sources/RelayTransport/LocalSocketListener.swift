#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A listening Unix socket in the abstract namespace (no file on disk) through which a client
/// library in this process hands us connections. Each connecting socket is identified by its own
/// autobound abstract name, so the caller knows exactly which request opened it.
public final class LocalSocketListener {
    /// The abstract name, without the leading NUL byte (as libcurl's ABSTRACT_UNIX_SOCKET wants it).
    public let name: String
    private let loop: EventLoop
    private let fd: Int32

    /// Starts listening on the loop; `onAccept` gets each accepted socket (non-blocking, now owned
    /// by the callee) and the peer's abstract name. Call from the loop thread.
    public init(loop: EventLoop, onAccept: @escaping (Int32, String) -> Void) throws(SystemError) {
        self.loop = loop
        name = "relayfetch.\(getpid()).\(UInt64.random(in: 0...UInt64.max))"
        fd = try systemCall("socket") { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        do {
            var (address, length) = Self.abstractAddress(name)
            try withUnsafePointer(to: &address) { pointer throws(SystemError) in
                try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw throws(SystemError) in
                    _ = try systemCall("bind") { bind(fd, raw, length) }
                }
            }
            try systemCall("listen") { listen(fd, 128) }
            try loop.register(fd, writable: false) { [fd] readable, _, _ in
                guard readable else { return }
                while true {
                    var peer = sockaddr_un()
                    var peerLength = socklen_t(MemoryLayout<sockaddr_un>.size)
                    let client = withUnsafeMutablePointer(to: &peer) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            accept(fd, $0, &peerLength)
                        }
                    }
                    if client < 0 { return }
                    _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
                    _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                    onAccept(client, Self.abstractName(peer, length: peerLength))
                }
            }
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    /// Stops listening. Call from the loop thread.
    public func close() {
        loop.deregister(fd)
        Glibc.close(fd)
    }

    /// Makes a client socket bound to a fresh abstract name of its own; returns it and the name.
    public static func makeClientSocket() throws(SystemError) -> (fd: Int32, name: String) {
        let client = try systemCall("socket") { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        // Binding with only the family asks the kernel for a unique abstract name (autobind).
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(client, $0, socklen_t(MemoryLayout<sa_family_t>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(client, $0, &length) }
        }
        guard bound == 0, named == 0 else {
            let error = SystemError(call: "bind(autobind)", code: errno)
            Glibc.close(client)
            throw error
        }
        return (client, abstractName(address, length: length))
    }

    private static func abstractAddress(_ name: String) -> (sockaddr_un, socklen_t) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(name.utf8.prefix(100))
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            path[0] = 0
            for (index, byte) in bytes.enumerated() { path[index + 1] = byte }
        }
        return (address, socklen_t(MemoryLayout<sa_family_t>.size + 1 + bytes.count))
    }

    /// The abstract name of an address (the bytes after the NUL, in hex) as a lookup key.
    private static func abstractName(_ address: sockaddr_un, length: socklen_t) -> String {
        let count = Int(length) - MemoryLayout<sa_family_t>.size
        guard count > 1 else { return "" }
        return withUnsafeBytes(of: address.sun_path) { path in
            path[1..<min(count, path.count)].map { String(format: "%02x", $0) }.joined()
        }
    }
}
