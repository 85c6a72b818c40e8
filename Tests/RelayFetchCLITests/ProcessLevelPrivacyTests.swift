import Foundation
import XCTest
import RelayFetchTestSupport

/// The real executable under strace: what it connects to, and what it writes.
/// Invariant 2 (no DNS leak) and invariant 3 (disk avoidance) at the system-call level.
final class ProcessLevelPrivacyTests: XCTestCase {
    override func setUpWithError() throws {
        try TestServers.ensureRunning()
        guard FileManager.default.isExecutableFile(atPath: CommandRun.executable) else {
            throw TestServerError(description: "build the executable first (swift build): \(CommandRun.executable)")
        }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/strace") else {
            throw TestServerError(description: "strace is missing: run scripts/setup.sh")
        }
    }

    func traced(_ arguments: [String]) throws -> (status: Int32, output: String, trace: [String]) {
        let traceFile = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-trace-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: traceFile) }
        let calls = "connect,sendto,sendmsg,open,openat,creat,rename,renameat,renameat2,link,linkat,symlink,unlink,unlinkat,mkdir,mkdirat,truncate"
        var environment = ProcessInfo.processInfo.environment
        // Under scripts/sanitize.sh: LeakSanitizer cannot run under ptrace, so it is off for traced runs.
        environment["ASAN_OPTIONS"] = (environment["ASAN_OPTIONS"].map { $0 + ":" } ?? "") + "detect_leaks=0"
        let result = try TestServers.run(["/usr/bin/strace", "-f", "-qq", "-e", "trace=\(calls)", "-o", traceFile.path,
                                          CommandRun.executable] + arguments, environment: environment)
        let trace = try String(contentsOf: traceFile, encoding: .utf8).split(separator: "\n").map(String.init)
        return (result.status, result.output, trace)
    }

    /// System calls that open a file for writing, create, rename, link or remove one.
    static func fileWrites(in trace: [String]) -> [String] {
        // Under scripts/sanitize.sh thread, ThreadSanitizer's runtime maps its read-only data through
        // a temporary file it unlinks at once (/tmp/tsan.rodata.<pid>): the runtime's, not ours.
        trace.filter { !$0.contains("/tsan.rodata.") }.filter { line in
            (line.contains("open") && (line.contains("O_WRONLY") || line.contains("O_RDWR") || line.contains("O_CREAT")))
                || ["creat(", "rename", "link(", "linkat(", "symlink", "unlink", "mkdir", "truncate("].contains { line.contains($0) }
        }
    }

    func testRelayedFetchConnectsOnlyToTheRelayAndResolvesNothing() throws {
        let marker = TestServers.marker("strace")
        let (status, output, trace) = try traced(["get", "https://origin.test/index.html?\(marker)", "-o", "/dev/null"] + CommandRun.relayArguments)
        XCTAssertEqual(status, 0, output)
        let connects = trace.filter { $0.contains("connect(") }
        XCTAssertTrue(connects.contains { $0.contains("sin_port=htons(3129), sin_addr=inet_addr(\"127.0.0.11\")") }, "\(connects)")
        for call in connects {
            let toRelay = call.contains("sin_port=htons(3129), sin_addr=inet_addr(\"127.0.0.11\")")
            let toOwnListener = call.contains("sun_path=@\"relayfetch.")
            XCTAssertTrue(toRelay || toOwnListener, "unexpected connection: \(call)")
        }
        XCTAssertFalse(trace.contains { $0.contains("htons(53)") }, "a DNS query left the process")
        XCTAssertFalse(trace.contains { $0.contains("/etc/hosts") || $0.contains("resolv.conf") }, "the resolver was consulted")
        XCTAssertEqual(TestServers.logLines(TestServers.originALog, containing: marker).first?.first, "127.0.0.11")
    }

    func testNothingIsWrittenToDiskButTheRequestedOutput() throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-out-\(UUID().uuidString).html")
        defer { try? FileManager.default.removeItem(at: output) }
        let (status, text, trace) = try traced(["get", "https://origin.test/redirect", "-o", output.path] + CommandRun.relayArguments)
        XCTAssertEqual(status, 0, text)
        let writes = Self.fileWrites(in: trace)
        XCTAssertEqual(writes.count, 1, "\(writes)")
        XCTAssertTrue(writes.first?.contains("\"\(output.path)\"") == true, "\(writes)")
    }
}

extension ProcessLevelPrivacyTests {
    /// Invariant 3 for a page load: the page sets a cookie, its images are cacheable, and still
    /// nothing but the requested HAR file is opened for writing, created or renamed.
    func testPageLoadWithCookiesAndCacheWritesOnlyTheHAR() throws {
        let har = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-page-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: har) }
        let (status, text, trace) = try traced(["page", "https://origin.test/full/index.html", "--har", har.path] + CommandRun.relayArguments)
        XCTAssertEqual(status, 0, text)
        let writes = Self.fileWrites(in: trace)
        XCTAssertEqual(writes.count, 1, "\(writes)")
        XCTAssertTrue(writes.first?.contains("\"\(har.path)\"") == true, "\(writes)")
        let entries = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(contentsOf: har)) as? [String: Any])?["log"] as? [String: Any])
        XCTAssertEqual((entries["entries"] as? [Any])?.count, 39)
    }
}
