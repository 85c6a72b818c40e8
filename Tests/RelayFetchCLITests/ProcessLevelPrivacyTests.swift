import Foundation
import XCTest
import RelayFetchTestSupport

/// The real executable under strace: what it connects to, and what it writes.
/// Invariant 2 (no DNS leak) and invariant 3 (disk avoidance) at the system-call level.
final class ProcessLevelPrivacyTests: XCTestCase {
    override func setUpWithError() throws {
        try TestServers.ensureRunning()
        try SystemCallTrace.requireExecutableAndStrace()
    }

    func traced(_ arguments: [String]) throws -> (status: Int32, output: String, trace: SystemCallTrace) {
        let traceFile = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-trace-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: traceFile) }
        var environment = ProcessInfo.processInfo.environment
        // Under scripts/sanitize.sh: LeakSanitizer cannot run under ptrace, so it is off for traced runs.
        environment["ASAN_OPTIONS"] = (environment["ASAN_OPTIONS"].map { $0 + ":" } ?? "") + "detect_leaks=0"
        let result = try TestServers.run(["/usr/bin/strace", "-f", "-qq", "-e", "trace=\(SystemCallTrace.traced)", "-o", traceFile.path,
                                          CommandRun.executable] + arguments, environment: environment)
        return (result.status, result.output, SystemCallTrace(try String(contentsOf: traceFile, encoding: .utf8)))
    }

    /// Relay A's squid (https://127.0.0.11:3129) with the automatic protocol: QUIC is tried
    /// first (nothing answers on UDP there), then the same port over TCP.
    static let relayA: Set<SystemCallTrace.Dial> = [.init(kind: .udp, address: "127.0.0.11:3129"), .init(kind: .tcp, address: "127.0.0.11:3129")]
    /// The same relay with --relay-protocol h1: TCP only (libcurl's own proxy connection).
    static let relayATCP = SystemCallTrace.Dial(kind: .tcp, address: "127.0.0.11:3129")

    /// The process dialled exactly `expected` (besides its own tunnel listener), resolved no
    /// name, and the trace is live: it recorded the dials and the opening of the test CA.
    func assertDialledOnly(_ expected: Set<SystemCallTrace.Dial>, in trace: SystemCallTrace, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(trace.externalDials, expected, "unexpected dials", file: file, line: line)
        XCTAssertEqual(trace.resolverActivity, [], "a name was resolved", file: file, line: line)
        XCTAssertTrue(trace.opened(TestServers.caFile), "the trace shows no opens: is it recording?", file: file, line: line)
    }

    func testRelayedFetchConnectsOnlyToTheRelayAndResolvesNothing() throws {
        let marker = TestServers.marker("strace")
        let (status, output, trace) = try traced(["get", "https://origin.test/index.html?\(marker)", "-o", "/dev/null"] + CommandRun.relayArguments)
        XCTAssertEqual(status, 0, output)
        assertDialledOnly(Self.relayA, in: trace)
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first?.first, "127.0.0.11")
    }

    /// With --relay-protocol h1 libcurl dials the relay itself, as its proxy: still only the
    /// relay, no name resolved (an http:// origin too: tunnelled, never resolved here), and
    /// nothing written but the output.
    func testOneHTTP1RelayIsDialledByLibcurlAndNothingIsResolved() throws {
        let origin = try HostileServer(script: "origin.py", arguments: ["--plain"])
        defer { origin.stop() }
        let marker = TestServers.marker("strace-h1")
        for url in ["https://origin.test/index.html?\(marker)", "http://origin.test:\(origin.port)/plain?\(marker)"] {
            let output = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-h1-\(UUID().uuidString).out")
            defer { try? FileManager.default.removeItem(at: output) }
            let (status, text, trace) = try traced(["get", url, "-o", output.path] + CommandRun.relayArguments + ["--relay-protocol", "h1"])
            XCTAssertEqual(status, 0, text)
            assertDialledOnly([Self.relayATCP], in: trace)
            assertWritesOnly(output, in: trace)
        }
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first?.first, "127.0.0.11")
        XCTAssertEqual(try origin.events().filter { $0.contains(marker) }.count, 1)
    }

    func testNothingIsWrittenToDiskButTheRequestedOutput() throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-out-\(UUID().uuidString).html")
        defer { try? FileManager.default.removeItem(at: output) }
        let (status, text, trace) = try traced(["get", "https://origin.test/redirect", "-o", output.path] + CommandRun.relayArguments)
        XCTAssertEqual(status, 0, text)
        assertWritesOnly(output, in: trace)
    }

    /// A streamed 64 MiB download through the relay: still only the output, only the relay dialled.
    func testStreamedDownloadWritesOnlyTheOutputAndDialsOnlyTheRelay() throws {
        let origin = try BulkOrigin()
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-bulk-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: output) }
        let (status, text, trace) = try traced(["get", origin.url(size: 64 << 20).absoluteString, "-o", output.path] + CommandRun.relayArguments)
        XCTAssertEqual(status, 0, text)
        assertWritesOnly(output, in: trace)
        assertDialledOnly(Self.relayA, in: trace)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: output.path)[.size] as? Int, 64 << 20)
    }

    /// The -o file is the only one written: an unnamed file (O_TMPFILE) in its folder, linked to
    /// a hidden name beside it, renamed to it.
    func assertWritesOnly(_ output: URL, in trace: SystemCallTrace, file: StaticString = #filePath, line: UInt = #line) {
        let writes = trace.fileWrites
        let folder = output.deletingLastPathComponent().path
        let hidden = "\"\(folder)/.\(output.lastPathComponent).relayfetch-"
        XCTAssertEqual(writes.count, 3, "\(writes)", file: file, line: line)
        guard writes.count == 3 else { return }
        XCTAssertTrue(writes[0].hasPrefix("openat(AT_FDCWD, \"\(folder)\", ") && writes[0].contains("O_TMPFILE"), writes[0], file: file, line: line)
        XCTAssertTrue(writes[1].hasPrefix("linkat(") && writes[1].contains(hidden), writes[1], file: file, line: line)
        XCTAssertTrue(writes[2].hasPrefix("rename(\(hidden)") && writes[2].contains(", \"\(output.path)\")"), writes[2], file: file, line: line)
    }

    /// Invariant 3 for a page load: the page sets a cookie, its images are cacheable, and still
    /// nothing but the requested HAR file is opened for writing, created or renamed.
    func testPageLoadWithCookiesAndCacheWritesOnlyTheHAR() throws {
        let har = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-page-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: har) }
        let (status, text, trace) = try traced(["page", "https://origin.test/full/index.html", "--complete", "--har", har.path] + CommandRun.relayArguments)
        XCTAssertEqual(status, 0, text)
        let writes = trace.fileWrites
        XCTAssertEqual(writes.count, 1, "\(writes)")
        XCTAssertTrue(writes.first?.contains("\"\(har.path)\"") == true, "\(writes)")
        let entries = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(contentsOf: har)) as? [String: Any])?["log"] as? [String: Any])
        XCTAssertEqual((entries["entries"] as? [Any])?.count, 39)
    }
}
