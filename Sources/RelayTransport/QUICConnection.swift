#if canImport(Glibc)
import Glibc
#endif
import Foundation
internal import CNgtcp2
import SystemIO

/// A QUIC v1 client connection (RFC 9000) to one relay: a UDP socket, an ngtcp2 connection and
/// the GnuTLS handshake (`QUICTLSSession`). It runs ngtcp2's loss-recovery and idle timers on
/// the event loop and carries the streams of a `QUICApplication`. Owns the ngtcp2 connection,
/// the path and connection-reference storage, the socket and the TLS session. Loop thread only.
final class QUICConnection {
    let hop: HopDescription
    weak var application: QUICApplication?
    private let loop: EventLoop
    private let host: String
    private let port: UInt16
    private let alpn: String
    private let handshakeTimeout: Double
    private let resolver: HostResolver?
    private let socket: QUICDatagramPath
    private let tls: QUICTLSSession
    private(set) var conn: OpaquePointer?  // ngtcp2_conn
    private let connectionReference: UnsafeMutablePointer<ngtcp2_crypto_conn_ref>
    private let path: UnsafeMutablePointer<ngtcp2_path_storage>
    /// Allocated in `init` after the last step that can throw: Swift runs no deinit for an object
    /// whose init threw before every stored property was set, so a buffer from a property
    /// initializer leaked with each connection whose TLS setup failed (a missing CA file, say).
    private let packet: UnsafeMutableRawBufferPointer
    private var blockedPacket: [UInt8]?  // waiting for the socket to become writable
    private var timer: UInt64?
    private var connectCompletion: ((Result<Void, RelayError>) -> Void)?
    private var handshakeDone = false
    /// True while ngtcp2 runs (and may call back): writes wait until it returns.
    private var processing = false
    var isProcessing: Bool { processing }
    var queuedBytes: Int { (blockedPacket?.count ?? 0) + socket.queuedBytes }
    private var writeRequested = false
    /// An application error code to close with once ngtcp2 returns; no packets go out meanwhile.
    private var closeRequested: UInt64?
    /// Set by a callback that failed, to explain ngtcp2's NGTCP2_ERR_CALLBACK_FAILURE.
    var callbackError: RelayError?
    private(set) var closed = false

    /// `path` carries the packets; nil for a UDP socket to the relay (`host` resolved on `connect`).
    init(loop: EventLoop, host: String, port: UInt16, trust: TLSTrust, alpn: String, hop: HopDescription,
         handshakeTimeout: Double = 10, path datagramPath: QUICDatagramPath? = nil, resolver: HostResolver? = nil) throws(TLSSetupError) {
        self.loop = loop
        self.resolver = resolver
        self.host = host
        self.port = port
        self.hop = hop
        self.alpn = alpn
        self.handshakeTimeout = handshakeTimeout
        socket = datagramPath ?? QUICSocket(loop: loop)
        tls = try QUICTLSSession(trust: trust, serverName: host, alpn: alpn)
        packet = .allocate(byteCount: 64 * 1024, alignment: 16)
        path = .allocate(capacity: 1)
        ngtcp2_path_storage_zero(path)
        connectionReference = .allocate(capacity: 1)
        // GnuTLS's session pointer: the helper asks it for our ngtcp2_conn. Unretained: this
        // connection owns the TLS session, so it outlives every call.
        connectionReference.initialize(to: ngtcp2_crypto_conn_ref(get_conn: { reference in
            Unmanaged<QUICConnection>.fromOpaque(reference!.pointee.user_data).takeUnretainedValue().conn
        }, user_data: Unmanaged.passUnretained(self).toOpaque()))
        tls.attach(connectionReference)
    }

    deinit {
        ngtcp2_conn_del(conn)  // before the TLS session it points to goes
        connectionReference.deallocate()
        path.deallocate()
        packet.deallocate()
    }

    // MARK: connecting

    /// Resolves the relay, opens the socket and runs the handshake; `completion` once, on the loop.
    func connect(_ completion: @escaping (Result<Void, RelayError>) -> Void) {
        connectCompletion = completion
        guard socket.needsRelayAddress else {  // a tunnel: the relay before this one knows the address
            loop.execute { [self] in if !closed { start(to: Data()) } }
            return
        }
        // Only the relay's own name is resolved here.
        AddressLookup.resolve(host: host, port: port, resolver: resolver, loop: loop) { [self] result in
            guard !closed else { return }
            switch result {
            case .success(let addresses): start(to: addresses[0])
            case .failure(let why): fail(RelayError(hop: hop, cause: .resolveFailed(why.reason)))
            }
        }
    }

    private func start(to address: Data) {
        do {
            try socket.open(to: address) { [weak self] readable, writable in
                if writable { self?.socketWritable() }
                if readable { self?.readPackets() }
            }
        } catch {
            return fail(RelayError(hop: hop, cause: .connectFailed(error.description)))
        }
        socket.withAddresses { local, localLength, remote, remoteLength in
            ngtcp2_path_storage_init(path, local, localLength, remote, remoteLength, nil)
        }
        do {
            // The callbacks' user data is this connection, unretained: it owns the ngtcp2_conn.
            conn = try QUICClientSetup.makeConnection(path: &path.pointee.path, handshakeTimeout: handshakeTimeout, hop: hop,
                                                      user: Unmanaged.passUnretained(self).toOpaque())
        } catch {
            return fail(error)
        }
        ngtcp2_conn_set_tls_native_handle(conn, UnsafeMutableRawPointer(tls.session))
        // PINGs keep an open connection (and its tunnels) from the idle timeout; the pool decides when it closes.
        ngtcp2_conn_set_keep_alive_timeout(conn, 15 * UInt64(NGTCP2_SECONDS))
        settle()
    }

    /// Called by the handshake-completed callback: checks pins and ALPN before anything is sent,
    /// then lets the application set up before stream data arrives.
    func handshakeCompleted() throws(RelayError) {
        if let cause = tls.peerCheck { throw RelayError(hop: hop, cause: cause) }
        guard tls.negotiatedALPN == alpn else {
            throw RelayError(hop: hop, cause: .protocolNotOffered(wanted: alpn, offered: tls.negotiatedALPN ?? "none"))
        }
        try application?.quicHandshakeCompleted()
        handshakeDone = true
    }

    /// Sends what is pending: now, or when ngtcp2 returns if it is running.
    func flush() {
        guard !closed, conn != nil else { return }
        if processing {
            writeRequested = true
        } else {
            writePackets()
            if let code = closeRequested { return close(applicationError: code) }
            scheduleTimer()
        }
    }

    /// Closes the connection with CONNECTION_CLOSE carrying `code`; the application is not told.
    /// Nothing is sent after this call, so the application may free its stream buffers.
    func close(applicationError code: UInt64) {
        guard !closed else { return }
        if processing {  // ngtcp2 must not be entered from its own callbacks: close when it returns
            closeRequested = code
            return
        }
        if let conn {
            var error = ngtcp2_connection_close_error()
            ngtcp2_connection_close_error_set_application_error(&error, code, nil, 0)
            sendClose(conn, &error)
        }
        tearDown()
        if let completion = connectCompletion {
            connectCompletion = nil
            completion(.failure(RelayError(hop: hop, cause: .protocolError("the connection was closed before the QUIC handshake finished"))))
        }
    }

    // MARK: I/O

    private func readPackets() {
        guard let conn, !closed else { return }
        let buffer = UnsafeMutableRawBufferPointer(rebasing: packet[...])
        processing = true
        // One clock reading per batch of datagrams, not one per packet: they arrived together.
        var now = EventLoop.nowNanos(), readSinceClock = 0
        while !closed {
            let count: Int?
            do {
                count = try socket.receive(into: buffer)
            } catch {
                processing = false
                return fail(pathFailure(error))
            }
            guard let count else { break }
            readSinceClock += 1
            if readSinceClock == QUICSocket.batch {
                now = EventLoop.nowNanos()
                readSinceClock = 0
            }
            var info = ngtcp2_pkt_info()
            let rc = rf_ngtcp2_conn_read_pkt(conn, &path.pointee.path, &info, buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), count, now)
            if rc != 0 {
                processing = false
                return failReading(rc)
            }
        }
        processing = false
        settle()
    }

    /// After ngtcp2 ran: finish connecting, let the application deliver, send, re-arm the timer.
    private func settle() {
        guard !closed else { return }
        if let code = closeRequested { return close(applicationError: code) }
        if handshakeDone, let completion = connectCompletion {
            connectCompletion = nil
            completion(.success(()))
        }
        application?.quicDidProcess()
        repeat {
            writeRequested = false
            writePackets()
            application?.quicDidProcess()
        } while writeRequested && !closed && closeRequested == nil
        if let code = closeRequested, !closed { return close(applicationError: code) }
        scheduleTimer()
    }

    private func writePackets() {
        guard let conn, !closed, closeRequested == nil else { return }
        guard flushPath(), sendBlockedPacket() else { return }
        processing = true
        defer { processing = false }
        var info = ngtcp2_pkt_info()
        let capacity = min(packet.count, ngtcp2_conn_get_path_max_tx_udp_payload_size(conn))
        let destination = packet.baseAddress!.assumingMemoryBound(to: UInt8.self)
        while !closed && closeRequested == nil {
            let chunk: QUICStreamChunk?
            do {
                chunk = handshakeDone ? try application?.quicNextStreamData() : nil
            } catch {
                return failLocally(error, conn)
            }
            let streamID = chunk?.streamID ?? -1
            let flags = UInt32(NGTCP2_WRITE_STREAM_FLAG_MORE) | (chunk?.fin == true ? UInt32(NGTCP2_WRITE_STREAM_FLAG_FIN) : 0)
            var vectors = (chunk?.buffers ?? []).map {
                ngtcp2_vec(base: UnsafeMutablePointer(mutating: $0.baseAddress?.assumingMemoryBound(to: UInt8.self)), len: $0.count)
            }
            var accepted: ngtcp2_ssize = -1
            let count = rf_ngtcp2_conn_writev_stream(conn, nil, &info, destination, capacity, &accepted, flags, streamID,
                                                     &vectors, vectors.count, EventLoop.nowNanos())
            do {
                if accepted >= 0, streamID >= 0 { try application?.quicWrote(accepted, onStream: streamID) }
            } catch {
                return failLocally(error, conn)
            }
            switch Int32(count) {
            case NGTCP2_ERR_WRITE_MORE: continue
            case NGTCP2_ERR_STREAM_DATA_BLOCKED: application?.quicStreamBlocked(streamID); continue
            case NGTCP2_ERR_STREAM_SHUT_WR: application?.quicStreamWriteClosed(streamID); continue
            default: break
            }
            if count < 0 {
                return failLocally(RelayError(hop: hop, cause: .protocolError("QUIC: \(String(cString: ngtcp2_strerror(Int32(count))))")), conn, liberr: Int32(count))
            }
            if count == 0 { break }  // nothing more, or congestion limited
            guard send(UnsafeRawBufferPointer(start: destination, count: count)) else { break }
        }
        ngtcp2_conn_update_pkt_tx_time(conn, EventLoop.nowNanos())
        _ = flushPath()
    }

    /// Why the path failed: the layer below's own error, or the socket's errno.
    private func pathFailure(_ error: SystemError) -> RelayError {
        socket.failure ?? RelayError(hop: hop, cause: error.code == ECONNREFUSED ? .connectionRefused : .connectFailed(error.description))
    }

    /// Sends the datagrams the path queued; false when some wait for the writable event (or the path failed).
    private func flushPath() -> Bool {
        do {
            if try socket.flush() { return true }
            socket.watchWritable(true)
        } catch {
            fail(pathFailure(error))
        }
        return false
    }

    /// Queues one datagram on the path; false when it had to wait for the socket (or the socket failed).
    private func send(_ datagram: UnsafeRawBufferPointer) -> Bool {
        do {
            if try socket.send(datagram) { return true }
            blockedPacket = Array(datagram)
            socket.watchWritable(true)
        } catch {
            fail(pathFailure(error))
        }
        return false
    }

    private func sendBlockedPacket() -> Bool {
        guard let pending = blockedPacket else { return true }
        blockedPacket = nil
        return pending.withUnsafeBytes { send($0) }
    }

    private func socketWritable() {
        socket.watchWritable(false)
        flush()
    }

    // MARK: timers

    private func scheduleTimer() {
        if let timer { loop.cancelTimer(timer) }
        timer = nil
        guard let conn, !closed else { return }
        let expiry = ngtcp2_conn_get_expiry(conn)
        guard expiry != UInt64.max else { return }
        let now = EventLoop.nowNanos()
        timer = loop.schedule(after: expiry > now ? Double(expiry - now) / 1e9 : 0) { [weak self] in self?.timerFired() }
    }

    private func timerFired() {
        timer = nil
        guard let conn, !closed else { return }
        processing = true
        let rc = ngtcp2_conn_handle_expiry(conn, EventLoop.nowNanos())
        processing = false
        switch rc {
        case 0: settle()
        case NGTCP2_ERR_IDLE_CLOSE: fail(RelayError(hop: hop, cause: .protocolError("the QUIC connection timed out idle")))
        case NGTCP2_ERR_HANDSHAKE_TIMEOUT: fail(RelayError(hop: hop, cause: .timeout))
        default: failLocally(RelayError(hop: hop, cause: .protocolError("QUIC: \(String(cString: ngtcp2_strerror(rc)))")), conn, liberr: rc)
        }
    }

    // MARK: failures

    /// ngtcp2 refused a packet from the relay: the relay closed, the handshake failed, or the packet was bad.
    private func failReading(_ rc: Int32) {
        guard let conn else { return }
        switch rc {
        case NGTCP2_ERR_DRAINING:
            fail(QUICCloseReason.relayClosed(conn, hop: hop, handshakeDone: handshakeDone))
        case NGTCP2_ERR_RECV_VERSION_NEGOTIATION:
            fail(RelayError(hop: hop, cause: .protocolError("the relay does not speak QUIC version 1")))
        case NGTCP2_ERR_DROP_CONN:
            fail(RelayError(hop: hop, cause: .protocolError("QUIC: the relay's packets could not be processed")))
        default:
            let error = callbackError ?? QUICCloseReason.readFailed(rc, tls: tls, hop: hop, handshakeDone: handshakeDone)
            failLocally(error, conn, liberr: rc)
        }
    }

    /// Fails after telling the relay why (CONNECTION_CLOSE with a transport error).
    private func failLocally(_ error: RelayError, _ conn: OpaquePointer, liberr: Int32 = NGTCP2_ERR_CALLBACK_FAILURE) {
        var close = ngtcp2_connection_close_error()
        if liberr == NGTCP2_ERR_CRYPTO {
            ngtcp2_connection_close_error_set_transport_error_tls_alert(&close, ngtcp2_conn_get_tls_alert(conn), nil, 0)
        } else {
            ngtcp2_connection_close_error_set_transport_error_liberr(&close, liberr, nil, 0)
        }
        processing = false
        sendClose(conn, &close)
        fail(error)
    }

    private func sendClose(_ conn: OpaquePointer, _ error: inout ngtcp2_connection_close_error) {
        var info = ngtcp2_pkt_info()
        let destination = packet.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let count = rf_ngtcp2_conn_write_connection_close(conn, nil, &info, destination, min(packet.count, 1452), &error, EventLoop.nowNanos())
        if count > 0, (try? socket.send(UnsafeRawBufferPointer(start: destination, count: count))) == true { _ = try? socket.flush() }
    }

    /// Ends the connection with `error`: the pending connect fails, or else the application hears of it.
    private func fail(_ error: RelayError) {
        guard !closed else { return }
        tearDown()
        if let completion = connectCompletion {
            connectCompletion = nil
            completion(.failure(error))
        } else {
            application?.quicConnectionFailed(error)
        }
    }

    private func tearDown() {
        closed = true
        if let timer { loop.cancelTimer(timer) }
        timer = nil
        socket.close()
    }
}
