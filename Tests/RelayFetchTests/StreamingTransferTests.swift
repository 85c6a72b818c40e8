import Foundation
import XCTest
import RelayFetch
import RelayFetchTestSupport

/// `Session.bytes(for:)` and `download(for:to:)` through relay A against the bulk origin, whose
/// log says how many bytes it really sent.
final class StreamingTransferTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    private func session(idleTimeout: Double = 30) throws -> Session {
        var configuration = TestServers.configuration(hops: [TestServers.relayHop()])
        configuration.requestTimeout = .infinity
        configuration.idleTimeout = idleTimeout
        return try Session(configuration: configuration)
    }

    /// A reader that stops for seconds stops the origin too: the relays, TLS and TCP stop reading,
    /// so only what fits in the buffers along the way leaves the origin. The pause is longer
    /// than the idle timeout, which must not count a paused reader's time.
    func testAPausedReaderHoldsTheSenderBack() async throws {
        let origin = try BulkOrigin()
        let session = try session(idleTimeout: 2)
        defer { session.invalidate() }
        let size = 256 << 20
        let (body, response) = try await session.bytes(for: HTTPRequest(url: origin.url(size: size)))
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(response.value(forHeaderField: "Content-Length"), String(size))
        var chunks = body.chunks.makeAsyncIterator()
        var received = 0
        if let first = try await chunks.next() {
            XCTAssertNil(BulkOrigin.firstMismatch(first, at: 0))
            received += first.count
        }
        try await Task.sleep(nanoseconds: 3_000_000_000)
        let sentWhilePaused = try origin.mostBytesSent()
        try await Task.sleep(nanoseconds: 1_000_000_000)
        let sentLater = try origin.mostBytesSent()
        XCTAssertGreaterThan(sentWhilePaused, 0, "the origin's log shows no progress at all")
        XCTAssertLessThan(sentWhilePaused, 64 << 20, "the origin kept sending to a paused reader")
        XCTAssertLessThan(sentLater - sentWhilePaused, 2 << 20, "the origin was still sending a second later")
        print("bulk origin: \(sentWhilePaused >> 20) MiB sent while the reader was paused")
        while let chunk = try await chunks.next() {
            if let bad = BulkOrigin.firstMismatch(chunk, at: received) { return XCTFail("byte \(bad) differs from the pattern") }
            received += chunk.count
        }
        XCTAssertEqual(received, size)
        XCTAssertEqual(try origin.events("SENT").last?[2], String(size))
    }

    /// Fail closed: with the relay down a streamed request fails naming hop 1, and the origin
    /// (whose log is read, and must exist) sees nothing.
    func testRelayDownFailsClosed() async throws {
        let origin = try BulkOrigin()
        var configuration = TestServers.configuration(hops: [TestServers.relayHop(url: TestServers.deadRelayURL)])
        configuration.requestTimeout = .infinity
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        do {
            _ = try await session.bytes(for: HTTPRequest(url: origin.url(size: 1 << 20)))
            XCTFail("a streamed request went through a relay that is down")
        } catch let error as FetchError {
            XCTAssertEqual(error.relayError?.hop.index, 1, "\(error)")
        }
        XCTAssertEqual(try origin.events("REQUEST"), [])
    }

    func testBytesIteratesTheBodyByteByByteToo() async throws {
        let origin = try BulkOrigin()
        let session = try session()
        defer { session.invalidate() }
        let (body, _) = try await session.bytes(for: HTTPRequest(url: origin.url(size: 100_000)))
        var bytes: [UInt8] = []
        for try await byte in body { bytes.append(byte) }
        XCTAssertEqual(Data(bytes), BulkOrigin.expected(size: 100_000))
    }

    /// A declared length over `maximumBodySize` fails before the body; an undeclared one
    /// (chunked) fails when the limit is crossed, and the origin stops soon after.
    func testMaximumBodySize() async throws {
        let origin = try BulkOrigin()
        let session = try session()
        defer { session.invalidate() }
        var declared = HTTPRequest(url: origin.url(size: 8 << 20))
        declared.maximumBodySize = 1 << 20
        do {
            _ = try await session.bytes(for: declared)
            XCTFail("a declared 8 MiB body passed a 1 MiB limit")
        } catch let error as FetchError {
            guard case .responseTooLarge(1 << 20) = error.detail else { return XCTFail("\(error)") }
        }
        var chunked = HTTPRequest(url: origin.url(size: 64 << 20, query: "chunked=1"))
        chunked.maximumBodySize = 1 << 20
        let (body, response) = try await session.bytes(for: chunked)
        XCTAssertEqual(response.value(forHeaderField: "Transfer-Encoding"), "chunked")
        var received = 0
        do {
            for try await chunk in body.chunks { received += chunk.count }
            XCTFail("a chunked 64 MiB body passed a 1 MiB limit")
        } catch let error as FetchError {
            guard case .responseTooLarge(1 << 20) = error.detail else { return XCTFail("\(error)") }
        }
        XCTAssertLessThanOrEqual(received, 1 << 20)
    }

    /// `download` replaces the file only with a whole body, dated by Last-Modified; a cut
    /// connection leaves the old file as it was and no other file in the folder.
    func testDownloadLeavesNoPartialFile() async throws {
        let origin = try BulkOrigin()
        let session = try session()
        defer { session.invalidate() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("download-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("bulk.bin")

        let response = try await session.download(for: HTTPRequest(url: origin.url(size: 3 << 20)), to: target)
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(try Data(contentsOf: target), BulkOrigin.expected(size: 3 << 20))
        let modified = try FileManager.default.attributesOfItem(atPath: target.path)[.modificationDate] as? Date
        XCTAssertEqual(modified, BulkOrigin.lastModified)

        do {
            _ = try await session.download(for: HTTPRequest(url: origin.url(size: 16 << 20, query: "drop=5000000")), to: target)
            XCTFail("a download cut at 5 MB succeeded")
        } catch {}
        XCTAssertEqual(try origin.events("SENT").last?[3], "dropped", "the origin's log does not show the cut")
        XCTAssertEqual(try Data(contentsOf: target).count, 3 << 20, "the old file was touched")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["bulk.bin"])
    }
}
