import Foundation

/// An HTTP/2 relay of a test's own: nghttpx (`http2-proxy=yes`, as the shared relays A and B run
/// it) on an address of the test's, with a certificate the test CA issues for that address, in
/// front of an HTTP/1.1 relay `backend` (host:port) that it passes every CONNECT and its
/// Proxy-Authorization on to, and answers (a 407's Proxy-Authenticate included) back from. Its
/// access log records each CONNECT's authority, status and Proxy-Authorization.
public final class NGHTTPXFront {
    public let host: String
    public let port: UInt16
    public let log: URL
    /// Its certificate (PEM), issued by the test CA for `host`.
    public let certificate: URL
    private let folder: URL
    private let process: Process

    public init(host: String, backend: String) throws {
        try TestServers.ensureRunning()
        self.host = host
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("nghttpx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        log = folder.appendingPathComponent("access.log")
        self.certificate = folder.appendingPathComponent("relay.pem")
        let certificate = self.certificate.path, key = folder.appendingPathComponent("relay.key").path
        try TestServers.issueCertificate(commonName: host, subjectAltName: "IP:\(host)", certificate: certificate, key: key, in: folder)
        port = try SOCKSServer.freePort(on: host)
        let backendParts = backend.split(separator: ":")
        let configuration = """
            frontend=\(host),\(port)
            backend=\(backendParts[0]),\(backendParts[1])
            http2-proxy=yes
            private-key-file=\(key)
            certificate-file=\(certificate)
            npn-list=h2
            no-ocsp=yes
            no-via=yes
            no-add-x-forwarded-proto=yes
            workers=1
            backend-connect-timeout=5s
            accesslog-file=\(log.path)
            accesslog-format=$time_iso8601\t$remote_addr\t$alpn\t$method\t$path\t$status\t$http_proxy_authorization
            accesslog-write-early=yes
            """
        let file = folder.appendingPathComponent("nghttpx.conf")
        try configuration.write(to: file, atomically: true, encoding: .utf8)
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/nghttpx")
        process.arguments = ["--conf", file.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: folder.appendingPathComponent("stderr.log").creatingFile())
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while !Self.accepts(host: host, port: port) {
            guard Date() < deadline, process.isRunning else {
                stop()
                throw TestServerError(description: "nghttpx on \(host):\(port) did not start (see \(folder.path)/stderr.log)")
            }
            usleep(50_000)
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Its certificate's SubjectPublicKeyInfo (DER), for a profile's `RawPublicKeys`.
    public func publicKeyDER() throws -> Data {
        let result = try TestServers.run(["/bin/sh", "-c", "openssl x509 -in '\(certificate.path)' -pubkey -noout | openssl pkey -pubin -outform DER | base64 -w0"])
        guard result.status == 0, let der = Data(base64Encoded: result.output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw TestServerError(description: "cannot read nghttpx's public key: \(result.output)")
        }
        return der
    }

    /// The relay's URL for `--relay` (with `--relay-protocol h2`).
    public var url: URL { URL(string: "https://\(host):\(port)")! }

    /// Ends nghttpx (SIGTERM to its master, which ends its worker).
    public func stop() { process.stopServer() }

    /// The access log's lines, split at tabs; throws when the log is missing.
    public func lines() throws -> [[String]] {
        guard FileManager.default.fileExists(atPath: log.path) else {
            throw TestServerError(description: "nghttpx's log \(log.path) is missing")
        }
        return try TestServers.allLogLines(log)
    }

    private static func accepts(host: String, port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in(sin_family: sa_family_t(AF_INET), sin_port: port.bigEndian, sin_addr: in_addr(s_addr: inet_addr(host)), sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}

private extension URL {
    /// The file, created empty first (a FileHandle for writing needs one).
    func creatingFile() -> URL {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        return self
    }
}
