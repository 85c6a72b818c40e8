import Foundation
import XCTest

/// Output that cannot be written (a full device) ends the tool with status 1 and one line on
/// standard error, never a trap (`FileHandle.write` trapped: exit by signal, no message).
final class StandardOutputFailureTests: XCTestCase {
    func testAFullStandardOutputExitsOneSayingSo() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandRun.executable)
        process.arguments = ["--help"]
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
