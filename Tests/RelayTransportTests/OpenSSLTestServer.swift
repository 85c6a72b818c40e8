import COpenSSL
@testable import RelayTransport
import Foundation
import RelayFetchTestSupport
import XCTest

/// A real OpenSSL TLS server run in-process over memory BIOs: the far end of a `MemoryLayer`
/// under a `TLSLayer`. It uses the relay certificate of the test CA (CN and SAN relay.test) and
/// picks the first ALPN protocol the client offers. Test thread only.
final class OpenSSLTestServer: MemoryPeer {
    private let context: OpaquePointer
    private let ssl: OpaquePointer
    private let readBIO: OpaquePointer
    private let writeBIO: OpaquePointer
    /// Plaintext the client sent.
    var received: [UInt8] = []
    private(set) var handshakeDone = false
    /// The client's close_notify arrived.
    private(set) var sawCloseNotify = false
    /// TLS records the server has read, by content type (to count how a write was split).
    private(set) var applicationRecords = 0

    static var pki: URL { TestServers.directory.appendingPathComponent("pki") }

    init(certificate: String = "relay") throws {
        let certificatePath = Self.pki.appendingPathComponent("\(certificate).pem").path
        let keyPath = Self.pki.appendingPathComponent("\(certificate).key").path
        guard FileManager.default.fileExists(atPath: certificatePath) else {
            throw TLSSetupError(reason: "no test CA at \(Self.pki.path): run scripts/test-servers.sh start")
        }
        context = SSL_CTX_new(TLS_server_method())!
        guard SSL_CTX_use_certificate_chain_file(context, certificatePath) == 1,
              SSL_CTX_use_PrivateKey_file(context, keyPath, SSL_FILETYPE_PEM) == 1 else {
            SSL_CTX_free(context)
            throw TLSSetupError(reason: "test server cannot load \(certificatePath)")
        }
        // The first protocol the client offers wins.
        SSL_CTX_set_alpn_select_cb(context, { _, selected, selectedLength, offered, offeredLength, _ in
            guard let offered, offeredLength > 1, let selected, let selectedLength else { return SSL_TLSEXT_ERR_NOACK }
            selected.pointee = offered + 1
            selectedLength.pointee = offered[0]
            return SSL_TLSEXT_ERR_OK
        }, nil)
        ssl = SSL_new(context)
        readBIO = BIO_new(BIO_s_mem())
        writeBIO = BIO_new(BIO_s_mem())
        SSL_set_bio(ssl, readBIO, writeBIO)
        SSL_set_accept_state(ssl)
    }

    deinit {
        SSL_free(ssl)
        SSL_CTX_free(context)
    }

    func receive(_ bytes: [UInt8]) {
        countRecords(bytes)
        _ = bytes.withUnsafeBytes { BIO_write(readBIO, $0.baseAddress, Int32($0.count)) }
        if !handshakeDone {
            guard SSL_do_handshake(ssl) == 1 else { return }
            handshakeDone = true
        }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = SSL_read(ssl, &buffer, Int32(buffer.count))
            if count > 0 {
                received += buffer[0..<Int(count)]
                continue
            }
            if SSL_get_error(ssl, count) == SSL_ERROR_ZERO_RETURN { sawCloseNotify = true }
            return
        }
    }

    func takeOutput() -> [UInt8] {
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while BIO_ctrl_pending(writeBIO) > 0 {
            let count = BIO_read(writeBIO, &buffer, Int32(buffer.count))
            guard count > 0 else { break }
            output += buffer[0..<Int(count)]
        }
        return output
    }

    /// Encrypts `bytes` for the client (after the handshake).
    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
            XCTAssertGreaterThan(written, 0, "test server SSL_write")
            guard written > 0 else { return }
            offset += Int(written)
        }
    }

    /// Sends close_notify.
    func closeNotify() { SSL_shutdown(ssl) }

    /// The negotiated ALPN protocol.
    var selectedALPN: String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    private var recordHeader: [UInt8] = []
    private var recordRemaining = 0

    /// Counts application-data records (type 23) in the client's byte stream, whatever the chunks.
    private func countRecords(_ bytes: [UInt8]) {
        for byte in bytes {
            if recordRemaining > 0 {
                recordRemaining -= 1
                continue
            }
            recordHeader.append(byte)
            if recordHeader.count == 5 {
                if recordHeader[0] == 23 { applicationRecords += 1 }
                recordRemaining = Int(recordHeader[3]) << 8 | Int(recordHeader[4])
                recordHeader = []
            }
        }
    }
}
