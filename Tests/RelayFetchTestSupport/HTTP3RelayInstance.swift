import Foundation

/// An HTTP/3 relay of a test's own: the shared relays' script (`Samples/servers/h3_relay.py`) on
/// an address of the test's, a UDP port the kernel picks (kept across a restart), with a
/// certificate the test CA issues for that address and a log of its own, so a test can count
/// every request in it, stop and start it (a relay restart), or shorten its idle timeout without
/// touching the shared relays.
public final class HTTP3RelayInstance {
    public let host: String
    /// The relay's UDP port, once it has started.
    public private(set) var port: UInt16 = 0
    /// The relay's access log (`HTTP3RelayLogField`); `lines()` fails when it is missing.
    public let log: URL
    private let folder: URL
    private let arguments: [String]
    private var process: Process?

    /// Issues the certificate and starts the relay; `token` is what it wants in proxy-authorization
    /// (without "Bearer "), `idleTimeout` its QUIC idle timeout in seconds; with `goAwayAfter`, it
    /// sends GOAWAY on a connection after that many tunnels on it; with `holdCredit`, it gives a
    /// tunnel no stream credit while its TCP target is behind (`--hold-credit`: back-pressure
    /// for uploads, which aioquic alone does not apply); `hosts` are names (to IPv4 loopback
    /// addresses) it resolves besides the shared relays' map; with `upstream` (host:port), it is
    /// an HTTP/3 front of that HTTP/1.1 relay (`--upstream`: no token check of its own, each
    /// CONNECT and its proxy-authorization passed on, a refusal's challenges passed back); it
    /// resets the first `rejectFirst` requests with H3_REQUEST_REJECTED, unprocessed.
    public init(host: String, token: String = "relay-token-B", idleTimeout: Double = 60, goAwayAfter: Int = 0,
                holdCredit: Bool = false, hosts: [String: String] = [:], upstream: String? = nil, rejectFirst: Int = 0) throws {
        try TestServers.ensureRunning()
        self.host = host
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("h3relay-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        log = folder.appendingPathComponent("access.log")
        let certificate = folder.appendingPathComponent("relay.pem").path, key = folder.appendingPathComponent("relay.key").path
        try TestServers.issueCertificate(commonName: host, subjectAltName: "IP:\(host)", certificate: certificate, key: key, in: folder)
        var arguments: [String] = ["-u", "-B", TestServers.repository.appendingPathComponent("Samples/servers/h3_relay.py").path,
                                   "--name", "T", "--source", host, "--token", token,
                                   "--cert", certificate, "--key", key, "--state", folder.path, "--idle-timeout", String(idleTimeout),
                                   "--goaway-after", String(goAwayAfter), "--reject-first", String(rejectFirst)]
        if holdCredit { arguments.append("--hold-credit") }
        for (name, address) in hosts.sorted(by: { $0.key < $1.key }) { arguments += ["--host", "\(name)=\(address)"] }
        if let upstream { arguments += ["--upstream", upstream] }
        self.arguments = arguments
        try start()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Starts the relay (again, on the same port) and waits, up to 10 s, for it to listen.
    public func start() throws {
        guard process == nil else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: HostileServer.python)
        process.arguments = arguments + ["--listen", "\(host):\(port)"]
        let output = Pipe()
        process.standardOutput = output
        let errors = folder.appendingPathComponent("stderr.log")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        self.process = process
        let handle = output.fileHandleForReading
        var line = Data()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let byte = handle.readData(ofLength: 1)
            if byte.isEmpty || byte == Data([0x0A]) { break }
            line.append(byte)
        }
        // "h3-relay: relay T listening on udp HOST:PORT (h3), ..."
        let words = String(decoding: line, as: UTF8.self).split(separator: " ")
        guard let at = words.firstIndex(of: "udp"), at + 1 < words.count,
              let bound = words[at + 1].split(separator: ":").last.flatMap({ UInt16($0) }), bound != 0 else {
            stop(graceful: false)
            let why = (try? String(contentsOf: errors, encoding: .utf8))?.split(separator: "\n").suffix(3).joined(separator: " | ") ?? ""
            throw TestServerError(description: "h3_relay.py on \(host) did not start: \(String(decoding: line, as: UTF8.self)) \(why)")
        }
        port = bound
    }

    /// Stops the relay: SIGTERM (it sends CONNECTION_CLOSE to every client first) or, not
    /// `graceful`, SIGKILL (its clients hear nothing). Polls rather than `waitUntilExit`.
    public func stop(graceful: Bool = true) {
        guard let process else { return }
        self.process = nil
        process.stopServer(graceful: graceful)
    }

    /// The log's lines, split at tabs; throws when the log is missing.
    public func lines() throws -> [[String]] {
        guard FileManager.default.fileExists(atPath: log.path) else {
            throw TestServerError(description: "the relay's log \(log.path) is missing")
        }
        return try TestServers.allLogLines(log)
    }
}
