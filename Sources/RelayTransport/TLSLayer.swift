#if canImport(Glibc)
import Glibc
#endif
internal import COpenSSL

/// TLS over any byte stream: OpenSSL with memory BIOs, so it runs over TCP or nested inside a
/// tunnel alike. Does SNI, ALPN and hostname (or IP) verification.
package final class TLSLayer: TransportLayer, TransportLayerDelegate {
    package let hop: HopDescription
    package weak var delegate: TransportLayerDelegate?
    private let lower: TransportLayer
    package var queuedBytes: Int { pendingPlaintext.count + lower.queuedBytes }
    private let context: TLSContext
    private let ssl: OpaquePointer
    private let readBIO: OpaquePointer   // bytes from the peer, for OpenSSL to read
    private let writeBIO: OpaquePointer  // bytes OpenSSL wants sent
    private var handshakeCompletion: ((Result<Void, RelayError>) -> Void)?
    private var handshakeDone = false
    private var paused = false
    private var closed = false
    /// Set once the peer's close_notify (or the end of the stream below) was passed up: the end
    /// is delivered once, and reading stops there.
    private var peerFinished = false
    /// The stream below has ended; what OpenSSL still holds is read (when not paused) before
    /// the end is judged: clean after close_notify, a failure of this hop without it.
    private var lowerEnded = false
    private var pendingPlaintext: [UInt8] = []
    /// Reused buffer for OpenSSL's output (no allocation per record).
    private var outputBuffer = [UInt8](repeating: 0, count: 16 * 1024)
    /// Decrypted input is gathered over many records (up to this much) and passed up in the
    /// array it was decrypted into: one delivery and no copy instead of one per 16 KiB record.
    private static let deliverySize = 256 * 1024
    private let policy: TLSTrustPolicy

    /// The ALPN protocol the peer selected, after connect.
    package private(set) var negotiatedALPN: String?

    /// - Parameters:
    ///   - serverName: host name to verify and send as SNI, or an IP literal to verify.
    ///   - alpn: protocols to offer, most preferred first.
    init(over lower: TransportLayer, context: TLSContext, serverName: String, alpn: [String], hop: HopDescription) throws(TLSSetupError) {
        guard let ssl = SSL_new(context.pointer) else { throw TLSSetupError(reason: TLSContext.lastError()) }
        self.lower = lower
        self.context = context
        self.ssl = ssl
        self.hop = hop
        policy = context.policy
        readBIO = BIO_new(BIO_s_mem())
        writeBIO = BIO_new(BIO_s_mem())
        SSL_set_bio(ssl, readBIO, writeBIO)  // ssl now owns both BIOs
        SSL_set_connect_state(ssl)
        let param = SSL_get0_param(ssl)
        if Self.isIPLiteral(serverName) {
            X509_VERIFY_PARAM_set1_ip_asc(param, serverName)
        } else {
            _ = rf_SSL_set_tlsext_host_name(ssl, serverName)
            SSL_set1_host(ssl, serverName)
        }
        if !alpn.isEmpty {
            var wire: [UInt8] = []
            for name in alpn { wire.append(UInt8(name.utf8.count)); wire.append(contentsOf: name.utf8) }
            SSL_set_alpn_protos(ssl, wire, UInt32(wire.count))
        }
        lower.delegate = self
    }

    deinit { SSL_free(ssl) }

    package func connect(_ completion: @escaping (Result<Void, RelayError>) -> Void) {
        handshakeCompletion = completion
        advanceHandshake()
    }

    private func advanceHandshake() {
        ERR_clear_error()
        let rc = SSL_do_handshake(ssl)
        flushOutput()
        if rc == 1 {
            if !policy.pins.isEmpty, let cause = policy.checkPeer(keyDigest: TLSContext.peerPublicKeyDigest(ssl)) {
                let completion = handshakeCompletion
                handshakeCompletion = nil
                close()
                completion?(.failure(RelayError(hop: hop, cause: cause)))
                return
            }
            handshakeDone = true
            var data: UnsafePointer<UInt8>?
            var length: UInt32 = 0
            SSL_get0_alpn_selected(ssl, &data, &length)
            if let data, length > 0 { negotiatedALPN = String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self) }
            let completion = handshakeCompletion
            handshakeCompletion = nil
            completion?(.success(()))
            readPlaintext()
            return
        }
        let error = SSL_get_error(ssl, rc)
        if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE { return }
        failHandshake(describeHandshakeFailure())
    }

    private func describeHandshakeFailure() -> String {
        let verify = SSL_get_verify_result(ssl)
        if verify != X509_V_OK {
            return "certificate verify failed: \(String(cString: X509_verify_cert_error_string(verify)))"
        }
        return TLSContext.lastError()
    }

    private func failHandshake(_ reason: String) {
        let completion = handshakeCompletion
        handshakeCompletion = nil
        close()
        completion?(.failure(RelayError(hop: hop, cause: .tls(reason))))
    }

    package func send(_ bytes: [UInt8]) {
        guard !closed else { return }
        pendingPlaintext.append(contentsOf: bytes)
        writePlaintext()
    }

    private func writePlaintext() {
        while !pendingPlaintext.isEmpty && handshakeDone {
            ERR_clear_error()
            let rc = pendingPlaintext.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
            if rc > 0 {
                pendingPlaintext.removeFirst(Int(rc))
                continue
            }
            let error = SSL_get_error(ssl, rc)
            if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE { break }
            fail(.tls(TLSContext.lastError()))
            return
        }
        flushOutput()
    }

    /// Moves whatever OpenSSL produced to the layer below.
    private func flushOutput() {
        while BIO_ctrl_pending(writeBIO) > 0 {
            let count = outputBuffer.withUnsafeMutableBytes { BIO_read(writeBIO, $0.baseAddress, Int32($0.count)) }
            if count <= 0 { break }
            lower.send(Array(outputBuffer[0..<Int(count)]))
        }
    }

    private func readPlaintext() {
        while handshakeDone && !paused && !closed && !peerFinished {
            // Plaintext is never longer than the ciphertext waiting: size the array by that.
            let waiting = Int(BIO_ctrl_pending(readBIO)) + Int(SSL_pending(ssl))
            var last: Int32 = 0
            var error: Int32 = 0
            let bytes = [UInt8](unsafeUninitializedCapacity: min(Self.deliverySize, max(16 * 1024 + 256, waiting))) { buffer, filled in
                filled = 0
                while filled < buffer.count {
                    ERR_clear_error()
                    last = SSL_read(ssl, buffer.baseAddress! + filled, Int32(buffer.count - filled))
                    guard last > 0 else {
                        error = SSL_get_error(ssl, last)  // now: the queue is this thread's, shared by all layers
                        return
                    }
                    filled += Int(last)
                    if SSL_pending(ssl) == 0 && BIO_ctrl_pending(readBIO) < 5 { return }  // no whole record left
                }
            }
            if !bytes.isEmpty { delegate?.layerDidReceive(bytes) }
            if last > 0 { continue }
            guard !closed, !paused else { return }
            flushOutput()  // post-handshake messages (tickets, key updates) may want to answer
            if error == SSL_ERROR_WANT_READ && lowerEnded {
                // Everything received is read, and no close_notify came: the connection to this
                // hop was cut (by it or below it), so whatever it carried may be incomplete.
                fail(.tunnelEndedEarly("the connection ended without a TLS close_notify"))
                return
            }
            if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE { return }
            if error == SSL_ERROR_ZERO_RETURN {
                finishFromPeer()
                return
            }
            fail(.tls(TLSContext.lastError()))
            return
        }
    }

    // MARK: TransportLayerDelegate (bytes from below)

    package func layerDidReceive(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { BIO_write(readBIO, $0.baseAddress, Int32($0.count)) }
        if handshakeDone {
            readPlaintext()
            writePlaintext()
        } else {
            advanceHandshake()
        }
    }

    package func layerDidReceiveEOF() {
        if !handshakeDone {
            failHandshake("connection closed by peer during handshake")
        } else {
            lowerEnded = true
            readPlaintext()  // while paused, this waits for setReadingPaused(false)
        }
    }

    /// Tells the layer above, once, that the peer is done sending.
    private func finishFromPeer() {
        guard !peerFinished, !closed else { return }
        peerFinished = true
        delegate?.layerDidReceiveEOF()
    }

    package func layerDidFail(_ error: RelayError) {
        if handshakeCompletion != nil {
            let completion = handshakeCompletion
            handshakeCompletion = nil
            close()
            completion?(.failure(error))
        } else {
            delegate?.layerDidFail(error)
        }
    }

    package func setReadingPaused(_ paused: Bool) {
        self.paused = paused
        lower.setReadingPaused(paused)
        if !paused { readPlaintext() }
    }

    package func close() {
        guard !closed else { return }
        closed = true
        if handshakeDone {
            SSL_shutdown(ssl)
            flushOutput()
        }
        lower.close()
    }

    private func fail(_ cause: RelayError.Cause) {
        let delegate = delegate
        close()
        delegate?.layerDidFail(RelayError(hop: hop, cause: cause))
    }

    static func isIPLiteral(_ host: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}
