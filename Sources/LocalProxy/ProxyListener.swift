#if canImport(Glibc)
import Glibc
#endif
import RelayTransport
import SystemIO

/// The proxy's listening socket on the front loop: TCP (IPv4 or IPv6) or a Unix socket created
/// with a file mode. Hands each accepted socket (non-blocking) and a name for the client's
/// address (for the log) to `onAccept`. Loop thread only.
final class ProxyListener {
    private let loop: EventLoop
    private let fd: Int32
    private let unixPath: String?
    private let family: Int32
    private let onAccept: (Int32, String) -> Void
    private var closed = false

    /// Call on the loop thread. `mode` applies to a Unix socket (set before it listens, so no
    /// client can connect while it has the default mode).
    init(loop: EventLoop, address: ProxyListenAddress, mode: mode_t, onAccept: @escaping (Int32, String) -> Void) throws(SystemError) {
        self.loop = loop
        let family: Int32
        switch address {
        case .unix: family = AF_UNIX
        case .tcp(let host, _): family = host.contains(":") ? AF_INET6 : AF_INET
        }
        let fd = try systemCall("socket") { socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        self.fd = fd
        self.family = family
        self.onAccept = onAccept
        if case .unix(let path) = address { unixPath = path } else { unixPath = nil }
        do {
            try Self.bind(fd, address, mode: mode)
            try systemCall("listen") { listen(fd, 1024) }
            try loop.register(fd, writable: false) { [weak self] readable, _, _ in
                if readable { self?.acceptAll() }
            }
        } catch {
            Glibc.close(fd)
            if let unixPath { unlink(unixPath) }
            throw error
        }
    }

    private func acceptAll() {
        while !closed {
            var peer = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let accepted: Int?
            do {
                accepted = try nonBlockingCall("accept") {
                    Int(withUnsafeMutablePointer(to: &peer) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(fd, $0, &length) } })
                }
            } catch {
                // Out of descriptors: the pending connection keeps the socket readable, so the loop
                // would spin on it; stop watching for a moment and let open connections end.
                if error.code == EMFILE || error.code == ENFILE { pause() }
                return
            }
            guard let accepted else { return }
            let client = Int32(accepted)
            _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            if family != AF_UNIX {
                var one: Int32 = 1
                setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            }
            onAccept(client, Self.name(of: peer, family: family))
        }
    }

    private func pause() {
        loop.update(fd, readable: false, writable: false)
        _ = loop.schedule(after: 0.1) { [weak self] in
            guard let self, !self.closed else { return }
            self.loop.update(self.fd, readable: true, writable: false)
            self.acceptAll()
        }
    }

    /// Stops listening (and removes a Unix socket's file). Call from the loop thread.
    func close() {
        guard !closed else { return }
        closed = true
        loop.deregister(fd)
        Glibc.close(fd)
        if let unixPath { unlink(unixPath) }
    }

    private static func bind(_ fd: Int32, _ address: ProxyListenAddress, mode: mode_t) throws(SystemError) {
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        switch address {
        case .tcp(let host, let port) where host.contains(":"):
            var socketAddress = sockaddr_in6()
            socketAddress.sin6_family = sa_family_t(AF_INET6)
            socketAddress.sin6_port = port.bigEndian
            guard inet_pton(AF_INET6, host, &socketAddress.sin6_addr) == 1 else { throw SystemError(call: "inet_pton", code: EINVAL) }
            try bind(fd, &socketAddress)
        case .tcp(let host, let port):
            var socketAddress = sockaddr_in()
            socketAddress.sin_family = sa_family_t(AF_INET)
            socketAddress.sin_port = port.bigEndian
            guard inet_pton(AF_INET, host, &socketAddress.sin_addr) == 1 else { throw SystemError(call: "inet_pton", code: EINVAL) }
            try bind(fd, &socketAddress)
        case .unix(let path):
            var socketAddress = sockaddr_un()
            socketAddress.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &socketAddress.sun_path) { raw in
                raw.copyBytes(from: path.utf8.prefix(raw.count - 1))
            }
            unlink(path)  // a socket file left by an earlier run
            // The mode is the umask's complement while bind creates the file: never wider than asked.
            let saved = umask(~mode & 0o777)
            defer { umask(saved) }
            try bind(fd, &socketAddress)
            _ = chmod(path, mode)
        }
    }

    private static func bind<Address>(_ fd: Int32, _ address: inout Address) throws(SystemError) {
        let size = socklen_t(MemoryLayout<Address>.size)
        try withUnsafePointer(to: &address) { pointer throws(SystemError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw throws(SystemError) in
                _ = try systemCall("bind") { Glibc.bind(fd, raw, size) }
            }
        }
    }

    /// "address:port" of a TCP client, "local" for a Unix socket's.
    private static func name(of peer: sockaddr_storage, family: Int32) -> String {
        var peer = peer
        switch family {
        case AF_INET:
            return withUnsafePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    var raw = address.pointee.sin_addr
                    var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
                    inet_ntop(AF_INET, &raw, &text, socklen_t(text.count))
                    return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + ":\(UInt16(bigEndian: address.pointee.sin_port))"
                }
            }
        case AF_INET6:
            return withUnsafePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    let bytes = withUnsafeBytes(of: address.pointee.sin6_addr) { Array($0) }
                    return "[\(TargetHost.ipv6(bytes) ?? "?")]:\(UInt16(bigEndian: address.pointee.sin6_port))"
                }
            }
        default:
            return "local"
        }
    }
}
