#if canImport(Glibc)
import Glibc
#endif

/// Joins a connected tunnel to one end of a socketpair, so a client library holding the other
/// end (libcurl) talks through the relays as if over a plain socket. Buffers at most
/// `highWater` bytes toward the client before pausing the tunnel.
public final class TunnelSocketBridge: TransportLayerDelegate {
    private let loop: EventLoop
    private let fd: Int32
    private let tunnel: TransportLayer
    private var toClient: [UInt8] = []
    private var closed = false
    private var tunnelEnded = false
    /// Reused for every read from the client's socket.
    private var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)
    private let highWater = 1 << 20
    private var onClose: (() -> Void)?

    /// Takes ownership of `fd` (non-blocking, our end of the socketpair) and of `tunnel`.
    public init(loop: EventLoop, fd: Int32, tunnel: TransportLayer) {
        self.loop = loop
        self.fd = fd
        self.tunnel = tunnel
    }

    /// Starts pumping both ways; `onClose` runs once when either side closes (the owner, which
    /// keeps the bridge alive until then, drops it there).
    public func start(onClose: @escaping () -> Void) {
        self.onClose = onClose
        tunnel.delegate = self
        do {
            try loop.register(fd, writable: false) { [weak self] readable, writable, _ in
                if writable { self?.flushToClient() }
                if readable { self?.readFromClient() }
            }
        } catch {
            shutdown()
        }
        readFromClient()
    }

    private func readFromClient() {
        while !closed {
            let count = readBuffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                tunnel.send(Array(readBuffer[0..<count]))
                continue
            }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
            // The client closed its end (libcurl never half-closes): the tunnel is done.
            shutdown()
            return
        }
    }

    private func flushToClient() {
        while !toClient.isEmpty && !closed {
            let count = toClient.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count > 0 {
                toClient.removeFirst(count)
                continue
            }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { break }
            shutdown()
            return
        }
        guard !closed else { return }
        loop.update(fd, writable: !toClient.isEmpty)
        // After the tunnel's EOF there is nothing more to read; unpausing would only re-enter it.
        if toClient.count < highWater / 2 && !tunnelEnded { tunnel.setReadingPaused(false) }
        if toClient.isEmpty && tunnelEnded { shutdown() }
    }

    public func layerDidReceive(_ bytes: [UInt8]) {
        toClient.append(contentsOf: bytes)
        if toClient.count >= highWater { tunnel.setReadingPaused(true) }
        flushToClient()
    }

    public func layerDidReceiveEOF() {
        tunnelEnded = true
        if toClient.isEmpty { Glibc.shutdown(fd, Int32(SHUT_WR)) }
        flushToClient()
    }

    public func layerDidFail(_ error: RelayError) {
        shutdown()
    }

    /// Closes both sides once.
    public func shutdown() {
        guard !closed else { return }
        closed = true
        loop.deregister(fd)
        Glibc.close(fd)
        tunnel.close()
        let done = onClose
        onClose = nil
        done?()
    }
}
