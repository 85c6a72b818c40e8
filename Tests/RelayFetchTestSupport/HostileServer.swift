import Foundation

/// A misbehaving server of our own (Python, loopback) started for one test: relays and origins
/// that stall, lie, flood, truncate or send malformed frames. Each script lives in
/// `Samples/servers/hostile/`, binds `--host` on a port the kernel picks, prints `READY <port>`
/// on its first line, and appends one line per event it saw to `--log`.
///
/// Scripts get the test PKI: `--cert`/`--key` name the relay certificate (IP SANs 127.0.0.11
/// and 127.0.0.12) when `host` is a relay address, and the origin certificate (origin.test,
/// *.origin.test, IP 127.0.0.21 and 127.0.0.22) otherwise; `--ca` is the test CA.
public final class HostileServer {
    public let host: String
    public let port: UInt16
    /// Where the script logs what it saw; `events()` fails when it is missing.
    public let log: URL
    private let process: Process
    /// The script's standard input: it exits when this closes, so it never outlives the tests.
    private let lifeline = Pipe()

    /// Starts `Samples/servers/hostile/<script>` with `arguments` after the common ones and
    /// waits (up to 10 s) for its READY line. `certificate` ("relay" or "origin") overrides the
    /// choice by address, for a server on another address that clients trust by its pinned key.
    public init(script: String, host: String = "127.0.0.21", certificate: String? = nil, arguments: [String] = []) throws {
        try TestServers.ensureRunning()
        self.host = host
        let isRelayAddress = host == "127.0.0.11" || host == "127.0.0.12"
        let pki = TestServers.directory.appendingPathComponent("pki")
        let certificate = certificate ?? (isRelayAddress ? "relay" : "origin")
        log = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-\(UUID().uuidString).log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
            throw TestServerError(description: "cannot create the hostile server's log \(log.path)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.python)
        process.arguments = ["-u", "-B", TestServers.repository.appendingPathComponent("Samples/servers/hostile/\(script)").path,
                             "--host", host, "--port", "0",
                             "--cert", pki.appendingPathComponent("\(certificate).pem").path,
                             "--key", pki.appendingPathComponent("\(certificate).key").path,
                             "--ca", pki.appendingPathComponent("ca.pem").path,
                             "--log", log.path] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = lifeline
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        guard let port = Self.readReadyPort(output.fileHandleForReading) else {
            kill(process.processIdentifier, SIGKILL)
            throw TestServerError(description: "hostile server \(script) did not print READY <port>")
        }
        self.port = port
    }

    deinit { stop() }

    /// Ends the server (idempotent). Polls instead of `waitUntilExit`, which can block forever
    /// on a test's cooperative thread.
    public func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { usleep(10_000) }
    }

    /// The events the server logged, one per line. Throws when the log is missing or unreadable,
    /// so a check that "the server saw nothing" cannot pass without a log to read.
    public func events() throws -> [String] {
        guard let text = try? String(contentsOf: log, encoding: .utf8) else {
            throw TestServerError(description: "hostile server log \(log.path) is missing or unreadable")
        }
        return text.split(separator: "\n").map(String.init)
    }

    /// The venv's Python (scripts/setup.sh), (it has `cryptography` and aioquic), else the system one.
    public static var python: String {
        let venv = TestServers.repository.appendingPathComponent(".build/venv/bin/python").path
        return FileManager.default.isExecutableFile(atPath: venv) ? venv : "/usr/bin/python3"
    }

    private static func readReadyPort(_ handle: FileHandle) -> UInt16? {
        var line = Data()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let byte = handle.readData(ofLength: 1)
            if byte.isEmpty { return nil }
            if byte == Data([0x0A]) { break }
            line.append(byte)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("READY ") else { return nil }
        return UInt16(text.dropFirst(6).trimmingCharacters(in: .whitespaces))
    }
}
