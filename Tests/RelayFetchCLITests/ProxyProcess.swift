import Foundation
import RelayFetchTestSupport

/// `relayfetch proxy` run as a process of its own for one test, listening in this suite's
/// loopback range (127.0.1.0/24) on a port of its own; its standard error (the per-connection
/// log lines) goes to a file `logLines()` reads. Stopped with SIGTERM.
final class ProxyProcess {
    static let address = "127.0.1.1"
    let port: UInt16
    let process: Process
    let log: URL

    /// Starts the proxy with `arguments` after `--listen` (unless `listen` is nil: the arguments
    /// name it) and waits up to 10 s for its "listening" line; `wrapper` runs it under another
    /// program (strace); `environment` is added to the test's own.
    init(_ arguments: [String], listen: Bool = true, wrapper: [String] = [], environment: [String: String] = [:]) throws {
        port = try Self.freePort()
        log = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-proxy-\(UUID().uuidString).log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
            throw TestServerError(description: "cannot create the proxy's log \(log.path)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: wrapper.first ?? CommandRun.executable)
        process.arguments = Array(wrapper.dropFirst()) + (wrapper.isEmpty ? [] : [CommandRun.executable])
            + ["proxy"] + (listen ? ["--listen", "\(Self.address):\(port)"] : []) + arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        self.process = process
        let deadline = Date().addingTimeInterval(10)
        while !(try text()).contains("listening on") {
            guard process.isRunning, Date() < deadline else {
                stop()
                throw TestServerError(description: "relayfetch proxy did not start: \(try text())")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    deinit { stop() }

    var socks: String { "\(Self.address):\(port)" }

    func text() throws -> String { try String(contentsOf: log, encoding: .utf8) }

    /// The per-connection lines ("proxy: client ..."), waiting up to 10 s for `count` of them.
    func connectionLines(count: Int = 1) throws -> [String] {
        let deadline = Date().addingTimeInterval(10)
        while true {
            let lines = try text().split(separator: "\n").map(String.init).filter { $0.hasPrefix("proxy: client ") }
            if lines.count >= count || Date() >= deadline { return lines }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// Sends SIGTERM and waits up to `timeout` seconds; returns the exit status (nil: still running).
    @discardableResult
    func stop(timeout: Double = 10) -> Int32? {
        guard process.isRunning else { return process.terminationStatus }
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            return nil
        }
        return process.terminationStatus
    }

    /// A port free on `address` now (bound and released).
    static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, Self.address, &address.sin_addr)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw TestServerError(description: "no free port on \(Self.address)") }
        return UInt16(bigEndian: address.sin_port)
    }

    /// Runs a program to its end; returns its status and standard output and error together.
    static func run(_ program: String, _ arguments: [String], environment: [String: String]? = nil) throws -> (status: Int32, output: String) {
        try TestServers.run([program] + arguments, environment: environment)
    }
}
