import Foundation
import XCTest
@testable import RelayFetch
import RelayFetchTestSupport

/// `ResponseBody.write(to:)`: libcurl's thread writes the body straight into the file. Checked
/// through relay A both ways it is spoken to (libcurl's own proxy for HTTP/1.1, the transport
/// bridge otherwise), against the bulk origin, whose log says what it really sent.
final class DirectWriteTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    private var folder: URL!

    override func setUp() {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("direct-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: folder) }

    private func session(_ relayProtocol: RelayProtocol) throws -> Session {
        var configuration = TestServers.configuration(hops: [TestServers.relayHop(relayProtocol: relayProtocol)])
        configuration.requestTimeout = .infinity
        return try Session(configuration: configuration)
    }

    /// Waits (up to 10 s) until the body's buffer reaches the state `reached` describes; fails
    /// with `what` if it never does. A state, not a time: a slow machine only waits longer.
    private func waitFor(_ body: ResponseBody, _ what: String, file: StaticString = #filePath, line: UInt = #line,
                         _ reached: ((producerPaused: Bool, ended: Bool)) -> Bool) async throws {
        let deadline = Date().addingTimeInterval(10)
        while true {
            guard let progress = body.progress else { return XCTFail("the body is not streamed", file: file, line: line) }
            if reached(progress) { return }
            guard Date() < deadline else { return XCTFail(what, file: file, line: line) }
            try await Task.sleep(nanoseconds: 5_000_000)
        }
    }

    /// The reader waits first, so the buffer fills and the transfer pauses; then it hands over the
    /// file. What was buffered must go in first, the paused transfer must go on, and every byte
    /// must land in order.
    func testBufferedBytesGoFirstAndThePausedTransferGoesOn() async throws {
        let size = 96 << 20
        for relayProtocol in [RelayProtocol.http1, .automatic] {
            let origin = try BulkOrigin()
            let session = try session(relayProtocol)
            defer { session.invalidate() }
            let (body, response) = try await session.bytes(for: HTTPRequest(url: origin.url(size: size)))
            XCTAssertEqual(response.statusCode, 200)
            try await waitFor(body, "the transfer never paused for the reader") { $0.producerPaused }
            XCTAssertLessThan(try origin.mostBytesSent(), size, "\(relayProtocol): the origin sent everything to a reader that was not reading")
            let target = folder.appendingPathComponent("bulk-\(relayProtocol).bin")
            let file = try DownloadFile(replacing: target)
            try await body.write(to: file)
            try file.commit()
            XCTAssertEqual(file.bytesWritten, size, "\(relayProtocol)")
            let written = try Data(contentsOf: target)
            XCTAssertEqual(written.count, size, "\(relayProtocol)")
            XCTAssertNil(BulkOrigin.firstMismatch(written, at: 0), "\(relayProtocol)")
            XCTAssertEqual(try origin.events("SENT").last?[2], String(size))
        }
    }

    /// A body that ended before the reader handed over the file is written from the buffer.
    func testABodyThatAlreadyEndedIsWrittenToo() async throws {
        let origin = try BulkOrigin()
        let session = try session(.http1)
        defer { session.invalidate() }
        let (body, _) = try await session.bytes(for: HTTPRequest(url: origin.url(size: 300_000)))
        XCTAssertFalse(try TestServers.waitForLogLines(origin.server.log, containing: "SENT\t", skipping: 0, timeout: 5).isEmpty,
                       "the origin logged no end of the body")
        try await waitFor(body, "the transfer never ended") { $0.ended }
        let target = folder.appendingPathComponent("small.bin")
        let file = try DownloadFile(replacing: target)
        try await body.write(to: file)
        try file.commit()
        XCTAssertEqual(try Data(contentsOf: target), BulkOrigin.expected(size: 300_000))
        XCTAssertEqual(file.bytesWritten, 300_000)
    }

    /// A file that refuses the bytes (/dev/full: no space left) stops the transfer with an error
    /// naming the file; the origin's log shows it stopped far short of the body.
    func testAFileThatRefusesBytesStopsTheTransfer() async throws {
        let size = 512 << 20
        for relayProtocol in [RelayProtocol.http1, .automatic] {
            let origin = try BulkOrigin()
            let session = try session(relayProtocol)
            defer { session.invalidate() }
            let (body, _) = try await session.bytes(for: HTTPRequest(url: origin.url(size: size)))
            let file = try DownloadFile(replacing: URL(fileURLWithPath: "/dev/full"))
            do {
                try await body.write(to: file)
                XCTFail("\(relayProtocol): writing into /dev/full succeeded")
            } catch {
                XCTAssertTrue("\(error)".contains("cannot write /dev/full: No space left on device"), "\(relayProtocol): \(error)")
            }
            file.discard()
            let sent = try TestServers.waitForLogLines(origin.server.log, containing: "SENT\t", skipping: 0, timeout: 5)
            XCTAssertEqual(sent.last?[3], "error", "\(relayProtocol): the origin's log does not show the transfer stopped")
            XCTAssertLessThan(try origin.mostBytesSent(), size / 4, "\(relayProtocol)")
        }
    }
}
