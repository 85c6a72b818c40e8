#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SystemIO

/// A QUIC connection's datagram path through the previous HTTP/3 hop: a CONNECT-UDP stream
/// (RFC 9298) whose DATA carries each QUIC packet as a DATAGRAM capsule. The stream is reliable
/// and ordered, so sending never blocks (the inner connection's congestion control paces it).
/// ngtcp2 still wants addresses for its path: fixed placeholders stand in, since the relay, not
/// this client, knows the real ones. Owns the CONNECT-UDP stream and closes it on `close`.
/// Loop thread only.
final class ConnectUDPDatagramPath: QUICDatagramPath, TransportLayerDelegate {
    /// Datagrams kept for the QUIC connection before it reads them; beyond this they drop, as on a network.
    private static let queueLimit = 1024

    private let tunnel: TransportLayer
    private var codec = ConnectUDPCapsuleCodec()
    private var incoming: [[UInt8]] = []
    /// Capsules of the packets queued since the last flush: one stream write for all of them.
    private var outgoing: [UInt8] = []
    private var nextIncoming = 0
    private var handler: ((Bool, Bool) -> Void)?
    private(set) var failure: RelayError?
    private var localAddress = ConnectUDPDatagramPath.placeholder(host: 0x7F00_0001, port: 1)
    private var remoteAddress: sockaddr_in

    /// `tunnel` is an open CONNECT-UDP stream to `targetPort` on the far side of the relay.
    init(tunnel: TransportLayer, targetPort: UInt16) {
        self.tunnel = tunnel
        remoteAddress = Self.placeholder(host: 0x7F00_0002, port: targetPort)
    }

    var needsRelayAddress: Bool { false }

    func open(to address: Data, handler: @escaping (Bool, Bool) -> Void) throws(SystemError) {
        self.handler = handler
        tunnel.delegate = self
    }

    func withAddresses(_ body: (UnsafePointer<sockaddr>, socklen_t, UnsafePointer<sockaddr>, socklen_t) -> Void) {
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafePointer(to: localAddress) { local in
            withUnsafePointer(to: remoteAddress) { remote in
                local.withMemoryRebound(to: sockaddr.self, capacity: 1) { local in
                    remote.withMemoryRebound(to: sockaddr.self, capacity: 1) { remote in body(local, length, remote, length) }
                }
            }
        }
    }

    func receive(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int? {
        if nextIncoming < incoming.count {
            let datagram = incoming[nextIncoming]
            nextIncoming += 1
            if nextIncoming == incoming.count {
                incoming.removeAll(keepingCapacity: true)
                nextIncoming = 0
            }
            let count = min(datagram.count, buffer.count)
            buffer.copyBytes(from: datagram[0..<count])
            return count
        }
        if failure != nil { throw SystemError(call: "CONNECT-UDP", code: ECONNRESET) }
        return nil
    }

    func send(_ packet: UnsafeRawBufferPointer) throws(SystemError) -> Bool {
        if failure != nil { throw SystemError(call: "CONNECT-UDP", code: ECONNRESET) }
        ConnectUDPCapsuleCodec.append(packet, to: &outgoing)
        return true
    }

    func flush() throws(SystemError) -> Bool {
        guard !outgoing.isEmpty else { return true }
        if failure != nil { throw SystemError(call: "CONNECT-UDP", code: ECONNRESET) }
        let capsules = outgoing
        outgoing = []
        tunnel.send(capsules)
        return true
    }

    func watchWritable(_ writable: Bool) {}

    /// Capsules not flushed yet, plus the CONNECT-UDP stream's own backlog on the hop before.
    var queuedBytes: Int { outgoing.count + tunnel.queuedBytes }

    func close() {
        handler = nil
        tunnel.delegate = nil
        tunnel.close()
    }

    // MARK: TransportLayerDelegate (the CONNECT-UDP stream)

    func layerDidReceive(_ bytes: [UInt8]) {
        do throws(ConnectUDPCapsuleCodec.DecodeError) {
            for datagram in try codec.decode(bytes) where incoming.count - nextIncoming < Self.queueLimit {
                incoming.append(datagram)
            }
        } catch {
            switch error {
            case .capsuleTooLarge(let length):
                return layerDidFail(RelayError(hop: tunnel.hop, cause: .protocolError("CONNECT-UDP: the relay sent a capsule of \(length) bytes")))
            }
        }
        handler?(true, false)
    }

    func layerDidReceiveEOF() {
        layerDidFail(RelayError(hop: tunnel.hop, cause: .protocolError("relay ended the CONNECT-UDP stream")))
    }

    func layerDidFail(_ error: RelayError) {
        guard failure == nil else { return }
        failure = error
        handler?(true, false)
    }

    private static func placeholder(host: UInt32, port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = host.bigEndian
        address.sin_port = port.bigEndian
        return address
    }
}
