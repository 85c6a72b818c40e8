#if canImport(Glibc)
import Glibc
#endif
import RelayFetch
import RelayTransport
import SystemIO

/// One SOCKS5 UDP ASSOCIATE (RFC 1928 §7), on its session's transport loop: a UDP socket of
/// ours takes the client's datagrams (from the client's address only), each is routed like a
/// connection (`Session.relayHops`, never direct) and carried over a CONNECT-UDP flow of its
/// own target, opened on first use and closed after `idleTimeout`; answers go back with the
/// target named. It lasts as long as the client's TCP connection. Datagrams for a target no
/// relay covers, or whose flow cannot open, are dropped, as a network drops them.
final class UDPAssociation {
    private struct Slot {
        var flow: DatagramFlow?
        var waiting: [[UInt8]] = []
        var lastUsed: UInt64
    }

    static let maximumFlows = 64
    static let maximumWaiting = 32

    private let session: Session
    private let loop: EventLoop
    private let control: Int32
    private let udp: Int32
    private let clientHost: [UInt8]
    private let idleTimeout: Double
    private var clientAddress: sockaddr_storage?
    private var clientAddressLength: socklen_t = 0
    private var slots: [TunnelTarget: Slot] = [:]
    private var buffer = [UInt8](repeating: 0, count: 65_536)
    private var report = ProxiedStreamReport(chain: [])
    private var ended = false
    private var onEnd: ((ProxiedStreamReport) -> Void)?

    /// Takes ownership of `control` (the client's TCP connection) and `udp` (bound, non-blocking);
    /// `clientHost` is the client's address bytes, the only source accepted.
    init(session: Session, control: Int32, udp: Int32, clientHost: [UInt8], idleTimeout: Double) {
        self.session = session
        loop = session.transportLoop
        self.control = control
        self.udp = udp
        self.clientHost = clientHost
        self.idleTimeout = idleTimeout
    }

    /// Starts on the loop; `onEnd` hears once, when the client's connection closes.
    func start(onEnd: @escaping (ProxiedStreamReport) -> Void) {
        self.onEnd = onEnd
        do {
            // The handlers hold the association until `end` deregisters them.
            try loop.register(control, writable: false) { _, _, _ in self.controlReadable() }
            try loop.register(udp, writable: false) { readable, _, _ in if readable { self.readDatagrams() } }
        } catch {
            return end()
        }
        sweep()
    }

    /// The client's TCP connection: its end (or failure) ends the association; bytes on it are
    /// not expected and are read and dropped.
    private func controlReadable() {
        var scratch = [UInt8](repeating: 0, count: 512)
        do {
            guard let count = try nonBlockingCall("recv", { scratch.withUnsafeMutableBytes { recv(control, $0.baseAddress, $0.count, 0) } }) else { return }
            if count > 0 { return }
        } catch {}
        end()
    }

    private func readDatagrams() {
        while !ended {
            var source = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let received: Int?
            do {
                received = try nonBlockingCall("recvfrom") {
                    buffer.withUnsafeMutableBytes { bytes in
                        withUnsafeMutablePointer(to: &source) {
                            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(udp, bytes.baseAddress, bytes.count, 0, $0, &length) }
                        }
                    }
                }
            } catch {
                return
            }
            guard let count = received else { return }
            guard Self.host(of: source) == clientHost else { continue }  // not our client
            clientAddress = source
            clientAddressLength = length
            guard let datagram = SOCKS5UDPDatagram(parsing: Array(buffer[0..<count])) else { continue }
            forward(datagram)
        }
    }

    private func forward(_ datagram: SOCKS5UDPDatagram) {
        let target = TunnelTarget(host: datagram.host, port: datagram.port)
        report.bytesFromClient += datagram.payload.count
        if var slot = slots[target] {
            slot.lastUsed = EventLoop.nowNanos()
            if let flow = slot.flow {
                flow.send(datagram.payload)
            } else if slot.waiting.count < Self.maximumWaiting {
                slot.waiting.append(datagram.payload)
            }
            slots[target] = slot
            return
        }
        guard slots.count < Self.maximumFlows, let hops = try? session.relayHops(forHost: datagram.host) else { return }
        report.chain = hops.map { "\($0.host):\($0.port)" }
        slots[target] = Slot(waiting: [datagram.payload], lastUsed: EventLoop.nowNanos())
        session.openDatagramFlow(hops: hops, to: target) { [self] result in
            guard !ended, var slot = slots[target] else {
                if case .success(let flow) = result { flow.close() }
                return
            }
            guard case .success(let flow) = result else {
                slots[target] = nil  // dropped; a later datagram tries again
                return
            }
            flow.start(onDatagram: { [weak self] payload in self?.deliver(payload, from: target) },
                       onEnd: { [weak self] _ in self?.slots[target] = nil })
            for payload in slot.waiting { flow.send(payload) }
            slot.waiting = []
            slot.flow = flow
            slots[target] = slot
        }
    }

    private func deliver(_ payload: [UInt8], from target: TunnelTarget) {
        guard var address = clientAddress else { return }
        report.bytesToClient += payload.count
        slots[target]?.lastUsed = EventLoop.nowNanos()
        let bytes = SOCKS5UDPDatagram(host: target.host, port: target.port, payload: payload).encoded
        let length = clientAddressLength
        _ = bytes.withUnsafeBytes { raw in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(udp, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL), $0, length) }
            }
        }
    }

    /// Closes the flows idle for `idleTimeout`, every second.
    private func sweep() {
        guard !ended else { return }
        let now = EventLoop.nowNanos()
        for (target, slot) in slots where Double(now - slot.lastUsed) / 1e9 >= idleTimeout {
            slots[target] = nil
            slot.flow?.close()
        }
        _ = loop.schedule(after: 1) { [weak self] in self?.sweep() }
    }

    private func end() {
        guard !ended else { return }
        ended = true
        loop.deregister(control)
        loop.deregister(udp)
        Glibc.close(control)
        Glibc.close(udp)
        let open = slots.values.compactMap(\.flow)
        slots = [:]
        for flow in open { flow.close() }
        let done = onEnd
        onEnd = nil
        done?(report)
    }

    /// The address bytes of an IPv4 or IPv6 socket address.
    static func host(of address: sockaddr_storage) -> [UInt8] {
        var address = address
        switch Int32(address.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { withUnsafeBytes(of: $0.pointee.sin_addr) { Array($0) } } }
        case AF_INET6:
            return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { withUnsafeBytes(of: $0.pointee.sin6_addr) { Array($0) } } }
        default:
            return []
        }
    }

    /// A UDP socket bound to the address the client's TCP connection `control` reached (port
    /// chosen by the kernel), with that address's bytes and the port, and the client's address
    /// bytes; nil for a Unix-socket connection (no UDP beside it).
    static func socket(beside control: Int32) -> (fd: Int32, address: [UInt8], port: UInt16, client: [UInt8])? {
        var local = sockaddr_storage()
        var peer = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        var peerLength = length
        let named = withUnsafeMutablePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(control, $0, &length) } }
        let peered = withUnsafeMutablePointer(to: &peer) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(control, $0, &peerLength) } }
        let family = Int32(local.ss_family)
        guard named == 0, peered == 0, family == AF_INET || family == AF_INET6 else { return nil }
        // The same address, port 0: the kernel picks one.
        withUnsafeMutablePointer(to: &local) { pointer in
            if family == AF_INET {
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port = 0 }
            } else {
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_port = 0 }
            }
        }
        let fd = Glibc.socket(family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var bound = sockaddr_storage()
        var boundLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } } == 0
            && withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &boundLength) } } == 0
        guard ok else {
            Glibc.close(fd)
            return nil
        }
        let port: UInt16 = withUnsafePointer(to: &bound) { pointer in
            family == AF_INET ? pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
                : pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
        }
        return (fd, host(of: bound), port, host(of: peer))
    }
}
