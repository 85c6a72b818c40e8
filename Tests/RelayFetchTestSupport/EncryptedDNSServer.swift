import Foundation
import Locking

/// The encrypted DNS resolver of the tests (Samples/servers/dns/dns_resolver.py on dnslib and
/// pyhpke, nginx in front for HTTPS), started once per test process and stopped with it:
/// DoH at https://dns.test/dns-query and DoT at dns.test:853 on `address` (127.0.0.50), the
/// ODoH target https://odoh-target.test/dns-query on the same address, and the oblivious relay
/// https://odoh-relay.test/proxy on `relayAddress` (127.0.0.51). Its zone (Samples/servers/dns/zone.txt) holds
/// names the machine cannot resolve, such as relay.test (relay A) and ohttp-relay.test.
// @unchecked: `process` and `lifeline` (Foundation classes, not Sendable) are used in init and
// deinit only; every other stored property is a Sendable `let`.
public final class EncryptedDNSServer: @unchecked Sendable {
    /// Where the running server is: 127.0.0.50 and .51 unless another test process holds them
    /// (other worktrees' suites may run at once), then the next free pair. Start it first.
    public static var address: String { running.withLock { $0?.address } ?? candidates[0].address }
    public static var relayAddress: String { running.withLock { $0?.relayAddress } ?? candidates[0].relay }
    /// Address pairs (resolver, oblivious relay) tried in order; .52 and .59 stay free for tests
    /// that need an address where nothing answers.
    private static let candidates = [("127.0.0.50", "127.0.0.51"), ("127.0.0.53", "127.0.0.54"), ("127.0.0.55", "127.0.0.56"),
                                     ("127.0.0.57", "127.0.0.58")].map { (address: $0.0, relay: $0.1) }
    public let address: String
    public let relayAddress: String
    public static let dohURL = URL(string: "https://dns.test/dns-query")!
    public static let odohTargetURL = URL(string: "https://odoh-target.test/dns-query")!
    public static let odohRelayURL = URL(string: "https://odoh-relay.test/proxy")!

    /// One line per question: time, service (doh, dot, odoh, odoh-relay, odoh-config), client
    /// address, HTTP version (or the DoT ALPN), method, name, type, rcode; and one per DoT
    /// connection (service dot-connection).
    public let log: URL
    /// nginx's access log: client, HTTP version, method, host, path, status.
    public let nginxLog: URL
    /// The ODoH target's ObliviousDoHConfigs, as it serves them.
    public let odohConfigs: URL
    private let process: Process
    private let lifeline = Pipe()

    private static let running = Locked<EncryptedDNSServer?>(nil)

    /// The server, started on first use on the first address pair it can bind.
    public static func shared() throws -> EncryptedDNSServer {
        try running.withLock { running in
            if let running { return running }
            var failures: [String] = []
            for pair in candidates {
                do {
                    let server = try EncryptedDNSServer(address: pair.address, relayAddress: pair.relay)
                    running = server
                    return server
                } catch {
                    failures.append("\(pair.address): \(error)")
                }
            }
            throw TestServerError(description: "the encrypted DNS resolver could not start: " + failures.joined(separator: "; "))
        }
    }

    private init(address: String, relayAddress: String) throws {
        self.address = address
        self.relayAddress = relayAddress
        try TestServers.ensureRunning()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-dns-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        log = state.appendingPathComponent("questions.log")
        nginxLog = state.appendingPathComponent("nginx-access.log")
        odohConfigs = state.appendingPathComponent("odohconfigs.bin")
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
            throw TestServerError(description: "cannot create the resolver's log \(log.path)")
        }
        let pki = TestServers.directory.appendingPathComponent("pki")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: HostileServer.python)
        process.arguments = ["-u", "-B", TestServers.repository.appendingPathComponent("Samples/servers/dns/dns_resolver.py").path,
                             "--addr", address, "--relay-addr", relayAddress,
                             "--zone", TestServers.repository.appendingPathComponent("Samples/servers/dns/zone.txt").path,
                             "--ca-cert", pki.appendingPathComponent("ca.pem").path, "--ca-key", pki.appendingPathComponent("ca.key").path,
                             "--state", state.path, "--log", log.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = lifeline
        try process.run()
        self.process = process
        let line = String(decoding: output.fileHandleForReading.readLine(timeout: 20), as: UTF8.self)
        guard line.hasPrefix("READY ") else {
            kill(process.processIdentifier, SIGKILL)
            throw TestServerError(description: "the encrypted DNS resolver did not start: \(line)")
        }
    }

    /// The logged questions, each split on TABs. Throws when the log is missing, so a check
    /// that "nobody asked" cannot pass without a log to read.
    public func questions() throws -> [[String]] {
        try Self.lines(log)
    }

    /// nginx's access-log lines, each split on TABs.
    public func nginxRequests() throws -> [[String]] {
        try Self.lines(nginxLog)
    }

    /// Waits (up to 5 s) until the question log has more than `count` lines; returns the new ones.
    public func questions(after count: Int, atLeast wanted: Int = 1) throws -> [[String]] {
        let deadline = Date().addingTimeInterval(5)
        while true {
            let all = try questions()
            if all.count >= count + wanted || Date() > deadline { return Array(all.dropFirst(count)) }
            usleep(20_000)
        }
    }

    private static func lines(_ url: URL) throws -> [[String]] {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            throw TestServerError(description: "\(url.path) is missing or unreadable")
        }
        return text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    }
}

/// Fields of the resolver's question log.
public enum DNSQuestionField: Int {
    case time = 0, service, client, httpVersion, method, name, type, rcode
}

extension FileHandle {
    /// Reads one line (without its newline), giving up after `timeout` seconds or at the end.
    func readLine(timeout: Double) -> Data {
        var line = Data()
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let byte = readData(ofLength: 1)
            if byte.isEmpty || byte == Data([0x0A]) { break }
            line.append(byte)
        }
        return line
    }
}
