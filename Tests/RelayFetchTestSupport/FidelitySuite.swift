import Foundation
import RelayFetch

/// The real-site suite (Benchmarks/fidelity): documentation sites from Debian packages served by
/// nginx on 127.0.0.81 behind a squid relay on 127.0.0.80, and per page what headless Chromium
/// with JavaScript off requested (expected/NAME.txt, written by chromium_requests.py).
public enum FidelitySuite {
    public static let folder = TestServers.repository.appendingPathComponent("Benchmarks/fidelity")
    public static let state = TestServers.repository.appendingPathComponent(".build/fidelity")
    public static var originLog: URL { state.appendingPathComponent("access.log") }
    public static let relayURL = URL(string: "http://127.0.0.80:3128")!

    /// One request in the origin's log.
    public struct Request: Hashable, Sendable {
        public let uri: String
        public let status: Int
        public let bytes: Int
        /// The request headers the suite logs: accept, sec-fetch-dest/mode/site/user, referer, origin.
        public var headers: [String] = []

        public init(uri: String, status: Int, bytes: Int, headers: [String] = []) {
            self.uri = uri
            self.status = status
            self.bytes = bytes
            self.headers = headers
        }
    }

    public struct Page: Sendable {
        public let name: String
        public let url: URL
        /// "WxH@ratio" when the page is loaded in another screen than 1280x800 at ratio 1.
        public let viewport: String?
    }

    /// Starts the suite's nginx and relay (after the test servers, whose CA they use).
    public static func start() throws {
        try TestServers.ensureRunning()
        var environment = ProcessInfo.processInfo.environment
        environment["RELAYFETCH_SERVERS_DIR"] = TestServers.directory.path
        environment["FIDELITY_DIR"] = state.path
        let result = try TestServers.run(["/bin/bash", folder.appendingPathComponent("servers.sh").path, "start"], environment: environment)
        guard result.status == 0 else { throw TestServerError(description: "Benchmarks/fidelity/servers.sh start failed:\n\(result.output)") }
    }

    public static func pages() throws -> [Page] {
        try String(contentsOf: folder.appendingPathComponent("pages.txt"), encoding: .utf8).split(separator: "\n").compactMap { line in
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard !line.hasPrefix("#"), fields.count == 2 || fields.count == 3, let url = URL(string: String(fields[1])) else { return nil }
            return Page(name: String(fields[0]), url: url, viewport: fields.count == 3 ? String(fields[2]) : nil)
        }
    }

    /// What Chromium requested for the page.
    public static func expected(_ name: String) throws -> [Request] {
        try String(contentsOf: folder.appendingPathComponent("expected/\(name).txt"), encoding: .utf8).split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t")
            guard fields.count == 3, let status = Int(fields[1]), let bytes = Int(fields[2]) else { return nil }
            return Request(uri: String(fields[0]), status: status, bytes: bytes)
        }
    }

    /// The request headers Chromium sent per URI (expected/NAME.headers.tsv), as the log has them:
    /// accept, sec-fetch-dest, sec-fetch-mode, sec-fetch-site, sec-fetch-user, referer, origin.
    public static func expectedHeaders(_ name: String) throws -> [String: [String]] {
        var result: [String: [String]] = [:]
        for line in try String(contentsOf: folder.appendingPathComponent("expected/\(name).headers.tsv"), encoding: .utf8).split(separator: "\n").dropFirst() {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 8 else { continue }
            result[fields[0]] = Array(fields[1...])
        }
        return result
    }

    public static let headerNames = ["accept", "sec-fetch-dest", "sec-fetch-mode", "sec-fetch-site", "sec-fetch-user", "referer", "origin"]

    /// Justified differences: "NAME URI reason" lines; URIs relayfetch may request or omit there.
    public static func allowedDifferences() throws -> [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        for line in try String(contentsOf: folder.appendingPathComponent("differences.txt"), encoding: .utf8).split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 2)
            guard !line.hasPrefix("#"), fields.count >= 2 else { continue }
            result[String(fields[0]), default: []].insert(String(fields[1]))
        }
        return result
    }

    public static func logSize() -> UInt64 {
        ((try? FileManager.default.attributesOfItem(atPath: originLog.path))?[.size] as? UInt64) ?? 0
    }

    /// The requests for `host` logged after `offset`; waits until `count` arrived or two seconds passed
    /// (nginx logs a request once its response is sent). Throws when the log is missing.
    public static func requests(since offset: UInt64, host: String, atLeast count: Int) throws -> [Request] {
        let deadline = Date().addingTimeInterval(2)
        while true {
            let handle = try FileHandle(forReadingFrom: originLog)
            defer { try? handle.close() }
            try handle.seek(toOffset: offset)
            let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
            let found: [Request] = text.split(separator: "\n").compactMap { line in
                let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
                guard fields.count >= 14, fields[2] == host, let status = Int(fields[4]), let bytes = Int(fields[5]) else { return nil }
                return Request(uri: fields[3], status: status, bytes: bytes, headers: Array(fields[7..<14]))
            }
            if found.count >= count || Date() > deadline { return found }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }
}
