import Foundation
import XCTest
@testable import RelayFetch

/// Which files libcurl's thread may write into itself: those whose writes never wait on a
/// reader. A terminal can (a paused tty), so it is written chunk by chunk like a FIFO.
final class DownloadFileDescriptorTests: XCTestCase {
    func testRegularFilesAndDevNullAreWrittenDirectlyATerminalIsNot() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("descriptor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let regular = try DownloadFile(replacing: folder.appendingPathComponent("file.bin"))
        XCTAssertNotNil(regular.directDescriptor)
        regular.discard()
        let null = try DownloadFile(replacing: URL(fileURLWithPath: "/dev/null"))
        XCTAssertNotNil(null.directDescriptor)
        null.discard()

        // Opening /dev/ptmx makes a pseudo-terminal (its master side): a character device that is a tty.
        guard FileManager.default.fileExists(atPath: "/dev/ptmx") else { throw XCTSkip("no pseudo-terminals here") }
        let terminal = try DownloadFile(replacing: URL(fileURLWithPath: "/dev/ptmx"))
        XCTAssertNil(terminal.directDescriptor, "a terminal's writes can wait")
        terminal.discard()
    }
}
