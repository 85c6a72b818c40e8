import Foundation
import XCTest
import RelayFetchTestSupport

/// The real executable under strace, with faults injected into its own system calls: a failing
/// fsync() leaves the old file in place, and the temporary-name fallback (a file system without
/// O_TMPFILE) creates the file under the umask. Against the bulk origin through relay A.
final class GetFileDurabilityTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        try TestServers.ensureRunning()
        try SystemCallTrace.requireExecutableAndStrace()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("get-durable-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    private var files: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted() }

    /// Runs `relayfetch ARGUMENTS` under `strace OPTIONS` (its log in the returned trace, one
    /// line per call strace showed) with `umask` set for the child.
    private func run(strace options: [String], umask mask: String, _ arguments: [String]) throws -> (status: Int32, output: String, trace: String) {
        let traceFile = folder.appendingPathComponent("strace.log")
        defer { try? FileManager.default.removeItem(at: traceFile) }
        var environment = ProcessInfo.processInfo.environment
        // Under scripts/sanitize.sh: LeakSanitizer cannot run under ptrace.
        environment["ASAN_OPTIONS"] = (environment["ASAN_OPTIONS"].map { $0 + ":" } ?? "") + "detect_leaks=0"
        let command = ["/usr/bin/strace", "-f", "-qq", "-o", traceFile.path] + options + [CommandRun.executable] + arguments
        let result = try TestServers.run(["/bin/sh", "-c", "umask \(mask) && exec \"$@\"", "sh"] + command, environment: environment)
        return (result.status, result.output, try String(contentsOf: traceFile, encoding: .utf8))
    }

    /// fsync() fails (EIO, injected): the body never replaces the old file, nothing else is
    /// left in the folder, and the error names the file. The old code renamed without fsync.
    func testAFailedFsyncLeavesTheOldFile() throws {
        let origin = try BulkOrigin()
        let target = folder.appendingPathComponent("durable.bin")
        try Data("old".utf8).write(to: target)
        let (status, output, trace) = try run(strace: ["-e", "trace=fsync", "-e", "inject=fsync:error=EIO"], umask: "022",
                                              ["get", origin.url(size: 200_000).absoluteString, "-o", target.path] + CommandRun.relayArguments)
        XCTAssertTrue(trace.contains("fsync(") && trace.contains("(INJECTED)"), "no fsync was called: \(trace)")
        XCTAssertEqual(status, 1, output)
        XCTAssertEqual(output, "relayfetch: error: cannot write \(target.path): Input/output error\n")
        XCTAssertEqual(try origin.events("SENT").last?[3], "complete", "the origin did not send the whole body")
        XCTAssertEqual(try String(contentsOf: target, encoding: .utf8), "old")
        XCTAssertEqual(files, ["durable.bin"])
    }

    /// O_TMPFILE refused (EOPNOTSUPP, injected on the folder only, as a file system without it
    /// answers): the temporary-name fallback makes the file with the umask's bits (0664 under
    /// umask 002, 0600 under 077). The old code's mkstemp + fchmod gave 0644 whatever the umask.
    func testTheTemporaryNameFallbackRespectsTheUmask() throws {
        let origin = try BulkOrigin()
        for (mask, mode) in [("002", 0o664), ("077", 0o600)] {
            let target = folder.appendingPathComponent("fallback-\(mask).bin")
            let (status, output, trace) = try run(strace: ["-P", folder.path, "-e", "trace=openat", "-e", "inject=openat:error=EOPNOTSUPP"], umask: mask,
                                                  ["get", origin.url(size: 100_000).absoluteString, "-o", target.path] + CommandRun.relayArguments)
            XCTAssertTrue(trace.contains("O_TMPFILE") && trace.contains("(INJECTED)"), "O_TMPFILE was not refused: \(trace)")
            XCTAssertEqual(status, 0, output)
            XCTAssertEqual(try Data(contentsOf: target), BulkOrigin.expected(size: 100_000))
            XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: target.path)[.posixPermissions] as? Int, mode, "umask \(mask)")
        }
        XCTAssertEqual(files, ["fallback-002.bin", "fallback-077.bin"])
    }
}
