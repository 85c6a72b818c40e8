import Foundation
import XCTest
import RelayFetchTestSupport

/// The log readers every "the server saw nothing" check relies on: a log that is missing or
/// unreadable is an error, never an empty list of lines.
final class ServerLogReadingTests: XCTestCase {
    func testMissingLogThrowsInsteadOfReadingAsEmpty() {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-no-such-log-\(UUID().uuidString)")
        XCTAssertThrowsError(try TestServers.logLines(missing, containing: "x"))
        XCTAssertThrowsError(try TestServers.allLogLines(missing))
        XCTAssertThrowsError(try TestServers.waitForLogLines(missing, containing: "x", skipping: 0, timeout: 0.2))
    }

    func testUnreadableLogThrows() throws {
        // A directory in place of the log: reading it fails even for root, who ignores file modes.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-log-dir-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        XCTAssertThrowsError(try TestServers.logLines(directory, containing: ""))
    }

    func testAnExistingLogIsReadLineByLine() throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-log-\(UUID().uuidString)")
        try Data("a\tb\nc\td\n".utf8).write(to: log)
        defer { try? FileManager.default.removeItem(at: log) }
        XCTAssertEqual(try TestServers.allLogLines(log), [["a", "b"], ["c", "d"]])
        XCTAssertEqual(try TestServers.logLines(log, containing: "c"), [["c", "d"]])
        XCTAssertEqual(try TestServers.waitForLogLines(log, containing: "", skipping: 2, timeout: 0.2), [])
    }
}
