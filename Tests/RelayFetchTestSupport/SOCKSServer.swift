import Foundation

/// microsocks (Debian `microsocks`, scripts/setup.sh), a real SOCKS5 server, started for one test
/// on a loopback address. It binds its outgoing connections to that address, so an origin's log
/// shows it as the peer; it logs each CONNECT it completes (`client[fd] CLIENT: connected to
/// TARGET:PORT`, the target as the client named it) to `log`; and it resolves names from a hosts
/// file of its own (origin.test, origin2.test), bind-mounted over /etc/hosts in a private mount
/// namespace, so it can resolve what this machine cannot. `username`/`password`: it then demands
/// them (RFC 1929).
public final class SOCKSServer {
    /// Where the tests' SOCKS servers listen (nothing else uses the address).
    public static let address = "127.0.0.61"

    public let host: String
    public let port: UInt16
    /// Its standard error: one line per CONNECT it completed. `connections()` fails when missing.
    public let log: URL
    private let folder: URL
    private let process: Process

    public init(host: String = SOCKSServer.address, username: String? = nil, password: String? = nil) throws {
        let microsocks = "/usr/bin/microsocks"
        guard FileManager.default.isExecutableFile(atPath: microsocks) else {
            throw TestServerError(description: "microsocks is missing: run scripts/setup.sh")
        }
        self.host = host
        port = try Self.freePort(on: host)
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("socks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let hosts = folder.appendingPathComponent("hosts")
        try "127.0.0.21 origin.test\n127.0.0.22 origin2.test\n".write(to: hosts, atomically: true, encoding: .utf8)
        log = folder.appendingPathComponent("socks.log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil), let logHandle = FileHandle(forWritingAtPath: log.path) else {
            throw TestServerError(description: "cannot create the SOCKS server's log \(log.path)")
        }
        var arguments = ["-i", host, "-p", String(port), "-b", host]
        if let username, let password { arguments += ["-u", username, "-P", password] }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        // unshare and sh exec in turn: the process is microsocks itself, so stop() ends it.
        process.arguments = ["--mount", "/bin/sh", "-c", "mount --bind \"$0\" /etc/hosts && exec \"$@\"", hosts.path, microsocks] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = logHandle
        try process.run()
        self.process = process
        guard Self.waitUntilListening(host: host, port: port) else {
            stop()
            throw TestServerError(description: "microsocks did not listen on \(host):\(port) (unshare --mount needs root)")
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: folder)
    }

    /// `socks5://[user:password@]host:port`.
    public func url(username: String? = nil, password: String? = nil) -> URL {
        let credentials = username.map { "\($0):\(password ?? "")@" } ?? ""
        return URL(string: "socks5://\(credentials)\(host):\(port)")!
    }

    /// Ends the server (idempotent), polling rather than blocking on `waitUntilExit`.
    public func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { usleep(10_000) }
    }

    /// The CONNECTs the server completed, in order: the client's address and the target as the
    /// client named it ("origin.test:443"). Throws when the log is missing.
    public func connections() throws -> [(client: String, target: String)] {
        guard let text = try? String(contentsOf: log, encoding: .utf8) else {
            throw TestServerError(description: "SOCKS server log \(log.path) is missing or unreadable")
        }
        return text.split(separator: "\n").compactMap { line in
            guard let colon = line.range(of: ": connected to "), let close = line.range(of: "] ") else { return nil }
            return (String(line[close.upperBound..<colon.lowerBound]), String(line[colon.upperBound...]))
        }
    }

    /// Waits up to `timeout` seconds until the server logged at least `count` CONNECTs.
    public func waitForConnections(_ count: Int, timeout: Double = 5) throws -> [(client: String, target: String)] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let lines = try connections()
            if lines.count >= count || Date() >= deadline { return lines }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// A port on `host` that nothing listens on (the kernel's pick, released at once): a SOCKS
    /// server that is down.
    public static func freePort(on host: String = address) throws -> UInt16 {
        let socket = try SilentSocket(.tcp, host: host)
        socket.close()
        return socket.port
    }

    private static func waitUntilListening(host: String, port: UInt16) -> Bool {
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            if (try? TestServers.run(["/bin/bash", "-c", "exec 3<>/dev/tcp/\(host)/\(port)"]))?.status == 0 { return true }
            usleep(20_000)
        }
        return false
    }
}
