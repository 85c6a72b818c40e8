#if canImport(Glibc)
import Glibc
#endif
import RelayTransport
import SystemIO

/// One local client during its handshake, on the proxy's front loop: reads what it sends into
/// the `ProxyHandshake` machine, writes the machine's answers, and hands the socket on once a
/// request is complete. It holds no buffer of its own between reads (the machines keep at most
/// one message), and a client that does not finish within the deadline is closed, so a slow or
/// silent client costs a descriptor and a few hundred bytes for a bounded time. Loop thread only.
final class ProxyClientConnection {
    let fd: Int32
    let peer: String
    let accepted: UInt64
    private let loop: EventLoop
    private var machine: ProxyHandshake
    private var timer: UInt64?
    private var finished = false
    private let onRequest: (ProxyClientConnection, ProxyRequest) -> Void
    private let onClose: (ProxyClientConnection) -> Void

    init(loop: EventLoop, fd: Int32, peer: String, credentials: ProxyCredentials,
         onRequest: @escaping (ProxyClientConnection, ProxyRequest) -> Void, onClose: @escaping (ProxyClientConnection) -> Void) {
        self.loop = loop
        self.fd = fd
        self.peer = peer
        accepted = EventLoop.nowNanos()
        machine = ProxyHandshake(credentials: credentials)
        self.onRequest = onRequest
        self.onClose = onClose
    }

    /// Starts reading; the connection is closed if the handshake is not done in `deadline` seconds.
    func start(deadline: Double, buffer: ReadBuffer) {
        do {
            try loop.register(fd, writable: false) { [weak self] readable, _, hangup in
                if readable || hangup { self?.read(into: buffer) }
            }
        } catch {
            return close()
        }
        timer = loop.schedule(after: deadline) { [weak self] in
            self?.timer = nil
            self?.close()
        }
    }

    private func read(into buffer: ReadBuffer) {
        while !finished {
            let received: Int?
            do {
                received = try nonBlockingCall("recv") { buffer.bytes.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) } }
            } catch {
                return close()
            }
            guard let count = received else { return }
            guard count > 0 else { return close() }
            let step = machine.receive(Array(buffer.bytes[0..<count]))
            if !step.reply.isEmpty { ProxyServer.sendWhole(step.reply, to: fd) }
            switch step.next {
            case .wait: continue
            case .close: return close()
            case .open(let request): return handOver(request)
            }
        }
    }

    /// Stops watching the socket here; the caller now owns it.
    private func handOver(_ request: ProxyRequest) {
        finished = true
        if let timer { loop.cancelTimer(timer) }
        loop.deregister(fd)
        onClose(self)
        onRequest(self, request)
    }

    /// Ends the handshake and closes the socket (a refusal, a timeout, the client's end, or room
    /// made for a newer client).
    func close() {
        guard !finished else { return }
        finished = true
        if let timer { loop.cancelTimer(timer) }
        loop.deregister(fd)
        Glibc.close(fd)
        onClose(self)
    }
}

/// The one read buffer every handshake on the front loop reads into (they run one at a time).
final class ReadBuffer {
    var bytes = [UInt8](repeating: 0, count: 4096)
}
