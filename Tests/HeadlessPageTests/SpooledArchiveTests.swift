import Foundation
import XCTest
import HeadlessPage
import OfflineCopy
import RelayFetch
import WebArchive
import RelayFetchTestSupport

/// A page with large images (the bulk origin's, through relay A) archived as WARC and saved as
/// an offline copy: the images spool to unnamed files as they arrive, so the test process's
/// peak memory (`MemoryPeak`: resident size, or the live heap under a sanitizer) grows by the
/// transfers' buffers, not by the bodies;
/// warcio checks every digest and the bytes against the origin's pattern.
final class SpooledArchiveTests: XCTestCase {
    private var python: String { TestServers.repository.appendingPathComponent(".build/venv/bin/python").path }

    override func setUpWithError() throws {
        try TestServers.ensureRunning()
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw TestServerError(description: "no \(python): run scripts/setup.sh")
        }
    }

    private func load(_ url: URL, maximumResponseSize: Int = 96 << 20, maximumPageBytes: Int = 256 << 20,
                      spoolDirectory: URL) async throws -> Page {
        var configuration = TestServers.configuration(hops: [TestServers.relayHop()])
        configuration.maximumResponseSize = maximumResponseSize
        configuration.requestTimeout = 300
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        var options = PageLoader.Options.complete
        options.keepBodies = true
        options.spoolDirectory = spoolDirectory
        options.maximumPageBytes = maximumPageBytes
        options.pageTimeout = 300
        options.resourceTimeout = 300
        return try await PageLoader(session: session, options: options).load(url)
    }

    private func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-spool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    func testLargeImagesStreamToWARCAndSavedCopyInBoundedMemory() async throws {
        let origin = try BulkOrigin(host: "127.0.0.110")
        defer { origin.server.stop() }
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let size = 64 << 20, count = 3
        let pageURL = URL(string: "https://\(origin.server.host):\(origin.server.port)/page/\(size)/\(count)")!
        let warc = folder.appendingPathComponent("page.warc"), save = folder.appendingPathComponent("saved")

        let gauge = try MemoryPeak()
        let page = try await load(pageURL, spoolDirectory: folder)
        try WARCWriter.write(page, to: warc)
        try OfflineCopy.write(page, to: save)
        let (growth, peak) = try gauge.stop()
        print("page with \(count) x \(size >> 20) MiB images, WARC and saved copy: \(gauge.measure) grew \(growth >> 20) MiB (to \(peak >> 20) MiB)")

        let images = page.resources.filter { $0.url.path.hasPrefix("/bulk/") }
        XCTAssertEqual(images.count, count, "\(page.resources.map { "\($0.url) \($0.error ?? "")" })")
        for image in images {
            XCTAssertNil(image.error)
            XCTAssertNil(Self.inMemory(image), "kept in memory")
            XCTAssertEqual(Self.spooled(image)?.count, size)
            XCTAssertEqual(image.size, size)
        }
        XCTAssertEqual(try origin.events("SENT").filter { $0.count > 3 && $0[2] == String(size) && $0[3] == "complete" }.count, count,
                       "the origin's log does not show every image sent whole")
        XCTAssertLessThan(growth, 48 << 20, "memory grew with the bodies")
        // Nothing named was left in the spool folder: only the two outputs.
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: folder.path)), ["page.warc", "saved"])

        let check = try TestServers.run([python, "-m", "warcio.cli", "check", "-v", warc.path])
        XCTAssertEqual(check.status, 0, check.output)
        XCTAssertEqual(check.output.components(separatedBy: "digest pass").count - 1, 2 * (count + 1) + 1, check.output)
        let compared = try TestServers.run([python, "-c", """
            import sys
            from warcio.archiveiterator import ArchiveIterator
            period = 1000003
            base = bytes(((k * 2654435761) >> 13) & 0xFF for k in range(period))
            with open(sys.argv[1], 'rb') as f:
                for r in ArchiveIterator(f):
                    if r.rec_type != 'response' or '/bulk/' not in r.rec_headers.get_header('WARC-Target-URI'):
                        continue
                    stream, offset, good = r.content_stream(), 0, True
                    while True:
                        chunk = stream.read(1 << 19)
                        if not chunk:
                            break
                        start = offset % period
                        expected = (base * 2)[start:start + len(chunk)] if len(chunk) <= period else None
                        if expected is None or chunk != expected:
                            good = False
                        offset += len(chunk)
                    print(r.rec_headers.get_header('WARC-Target-URI'), offset, 'pattern' if good else 'differs')
            """, warc.path])
        XCTAssertEqual(compared.status, 0, compared.output)
        let lines = compared.output.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, count, compared.output)
        XCTAssertTrue(lines.allSatisfy { $0.hasSuffix(" \(size) pattern") }, compared.output)

        // The saved copy: each image whole, byte for byte the pattern.
        let savedImages = try FileManager.default.subpathsOfDirectory(atPath: save.path).filter { $0.contains("bulk") && !$0.hasSuffix("/bulk") }
        XCTAssertEqual(savedImages.count, count, "\(savedImages)")
        for path in savedImages {
            let handle = try FileHandle(forReadingFrom: save.appendingPathComponent(path))
            defer { try? handle.close() }
            var offset = 0
            while let chunk = try handle.read(upToCount: 4 << 20), !chunk.isEmpty {
                if let bad = BulkOrigin.firstMismatch(chunk, at: offset) { return XCTFail("\(path): byte \(bad) differs") }
                offset += chunk.count
            }
            XCTAssertEqual(offset, size, path)
        }
    }

    /// Spooled bodies keep the loader's limits: the session's per-resource `maximumResponseSize`
    /// and the page's `maximumPageBytes`.
    func testSpooledBodiesKeepThePerResourceAndPageLimits() async throws {
        let origin = try BulkOrigin(host: "127.0.0.111")
        defer { origin.server.stop() }
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let base = "https://\(origin.server.host):\(origin.server.port)"

        let tooLarge = try await load(URL(string: "\(base)/page/\(16 << 20)/2")!, maximumResponseSize: 8 << 20, spoolDirectory: folder)
        let failed = tooLarge.resources.filter { $0.url.path.hasPrefix("/bulk/") }
        XCTAssertEqual(failed.count, 2)
        XCTAssertTrue(failed.allSatisfy { $0.error?.contains("\(8 << 20)") == true && Self.spooled($0) == nil }, "\(failed.map { $0.error ?? "" })")

        let limit = 40 << 20
        let capped = try await load(URL(string: "\(base)/page/\(16 << 20)/4?capped")!, maximumPageBytes: limit, spoolDirectory: folder)
        XCTAssertTrue(capped.limitsReached.contains(.bytes(limit)), "\(capped.limitsReached)")
        XCTAssertLessThanOrEqual(capped.totalBytes, limit)
        let cut = capped.resources.filter { $0.error?.contains("maximumPageBytes") == true }
        XCTAssertFalse(cut.isEmpty, "\(capped.resources.map { "\($0.url) \($0.size) \($0.error ?? "")" })")
        XCTAssertEqual(capped.resources.compactMap { Self.spooled($0)?.count }.reduce(0, +) + capped.main.size
                       + capped.resources.compactMap { Self.inMemory($0)?.count }.reduce(0, +), capped.totalBytes)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [], "a spooled body left a name behind")
    }

    private static func spooled(_ resource: PageResource) -> SpooledBody? {
        if case .spooled(let spooled) = resource.exchange.body { return spooled }
        return nil
    }

    private static func inMemory(_ resource: PageResource) -> Data? {
        if case .data(let data) = resource.exchange.body { return data }
        return nil
    }
}
