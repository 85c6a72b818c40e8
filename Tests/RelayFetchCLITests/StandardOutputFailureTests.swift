import Foundation
import XCTest

/// Output that cannot be written (a full device) ends the tool with status 1 and one line on
/// standard error, never a trap (`FileHandle.write` trapped: exit by signal, no message).
final class StandardOutputFailureTests: XCTestCase {
    func testAFullStandardOutputExitsOneSayingSo() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandRun.executable)
        process.arguments = ["--help"]
        // Under scripts/sanitize.sh: the tool exits (status 1) from inside the write that failed,
        // so that write's Data is alive in its frames by design; LeakSanitizer's check at exit
        // cannot see Data's storage pointer (kept in an enum's spare bits) and would report it.
        var environment = ProcessInfo.processInfo.environment
        environment["ASAN_OPTIONS"] = (environment["ASAN_OPTIONS"].map { $0 + ":" } ?? "") + "detect_leaks=0"
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full"))
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit, "ended by a signal: \(message)")
        XCTAssertEqual(process.terminationStatus, 1, message)
        XCTAssertTrue(message.hasPrefix("relayfetch: cannot write standard output:"), message)
        XCTAssertEqual(message.split(separator: "\n").count, 1, message)
    }
}
