import Foundation
import XCTest
import RelayFetchTestSupport

/// `get -o FILE` never destroys what FILE held: error answers to a resume or under -f leave it as
/// it was, a resume is validated by the strong ETag kept with the file, --max-filesize limits the
/// whole file, and a replaced file keeps its mode. Against nginx (origin.test) and the bulk
/// origin, through relay A; the origins' logs say what was asked.
final class GetResumeSafetyTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        try TestServers.ensureRunning()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("get-safe-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    private var files: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted() }

    private func get(_ url: URL, _ options: [String]) async -> CommandRun {
        await CommandRun.run(["get", url.absoluteString] + options + CommandRun.relayArguments)
    }

    /// A partial file of `size` pattern bytes saved by relayfetch itself from `query` (cut at
    /// `size` and kept), so it carries what a real partial download carries: its time, its ETag.
    private func partialFile(_ origin: BulkOrigin, size: Int, total: Int, query: String, name: String) async throws -> URL {
        let target = folder.appendingPathComponent(name)
        let cut = await get(origin.url(size: total, query: "\(query)&drop=\(size)"), ["-o", target.path, "--keep-partial"])
        XCTAssertEqual(cut.status, 1, "the first transfer was not cut: \(cut.stderr)")
        XCTAssertEqual(try Data(contentsOf: target), BulkOrigin.expected(size: size), "the partial file")
        return target
    }

    /// -C - answered 404 (nginx, a missing path) or 503 (the bulk origin): the partial file keeps
    /// every byte and its time, and the command fails naming the status. The old code replaced it
    /// with the error page and exited 0.
    func testAnErrorAnswerToAResumeLeavesThePartialFileAsItWas() async throws {
        let target = folder.appendingPathComponent("partial.bin")
        let partial = BulkOrigin.expected(size: 100_000)
        try partial.write(to: target)
        let time = Date(timeIntervalSince1970: 1_700_000_000)
        try FileManager.default.setAttributes([.modificationDate: time], ofItemAtPath: target.path)
        let marker = TestServers.marker("resume-404")
        let missing = await get(URL(string: "https://origin.test/no-such-file-\(marker).bin")!, ["-o", target.path, "-C", "-"])
        XCTAssertEqual(missing.status, 1, missing.stderr)
        XCTAssertEqual(missing.stderr, "relayfetch: error: cannot resume \(target.path): the server answered 404 for "
                                       + "https://origin.test/no-such-file-\(marker).bin; the file is left as it was\n")
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first?[3], "404",
                       "nginx did not log the 404")
        XCTAssertEqual(try Data(contentsOf: target), partial)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: target.path)[.modificationDate] as? Date, time)

        let origin = try BulkOrigin()
        let failing = await get(origin.url(size: 300_000, query: "status=503"), ["-o", target.path, "-C", "-"])
        XCTAssertEqual(failing.status, 1, failing.stderr)
        XCTAssertTrue(failing.stderr.contains("the server answered 503"), failing.stderr)
        XCTAssertEqual(try origin.events("REQUEST").last?[5], "bytes=100000-", "the origin saw no Range request")
        XCTAssertEqual(try Data(contentsOf: target), partial)
        XCTAssertEqual(files, ["partial.bin"])
    }

    /// -f on a status of 400 or more writes nothing: FILE keeps its bytes, standard output gets
    /// none. The old code replaced FILE with the 404 page (and printed it) before failing.
    func testFailWritesNothingOnAnErrorAnswer() async throws {
        let target = folder.appendingPathComponent("kept.html")
        try Data("precious".utf8).write(to: target)
        let marker = TestServers.marker("fail-404")
        let url = URL(string: "https://origin.test/no-such-file-\(marker).html")!
        let toFile = await get(url, ["-f", "-o", target.path])
        XCTAssertEqual(toFile.status, 1)
        XCTAssertTrue(toFile.stderr.contains("the server answered 404"), toFile.stderr)
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first?[3], "404")
        XCTAssertEqual(try String(contentsOf: target, encoding: .utf8), "precious")
        XCTAssertEqual(files, ["kept.html"])
        let toStdout = await get(url, ["-f"])
        XCTAssertEqual(toStdout.status, 1)
        XCTAssertEqual(toStdout.stdout, Data())
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 1).count, 1, "the second request")
    }

    /// A strong ETag is kept with the file and validates the resume (If-Range), whatever the
    /// file's time says; a new version under the same Last-Modified comes back whole instead of
    /// being spliced onto the old bytes, which the old code (If-Range: the date) did.
    func testAStrongETagValidatesTheResume() async throws {
        let origin = try BulkOrigin()
        let size = 1_000_000
        let target = try await partialFile(origin, size: 300_000, total: size, query: "etag=%22v1%22", name: "tagged.bin")
        // A time no server sent: only the ETag can make this resume match.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_000_000_000)], ofItemAtPath: target.path)
        let resumed = await get(origin.url(size: size, query: "etag=%22v1%22"), ["-o", target.path, "-C", "-"])
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        let request = try origin.events("REQUEST").last
        XCTAssertEqual(request?[5], "bytes=300000-")
        XCTAssertEqual(request?[6], "\"v1\"", "If-Range is not the stored ETag")
        XCTAssertEqual(try origin.events("SENT").last?[2], String(size - 300_000), "the origin sent more than the rest")
        XCTAssertEqual(try Data(contentsOf: target), BulkOrigin.expected(size: size))

        // Version 2: other bytes, another ETag, the same Last-Modified.
        let stale = try await partialFile(origin, size: 300_000, total: size, query: "etag=%22v1%22", name: "stale.bin")
        XCTAssertNotEqual(BulkOrigin.expected(size: 300_000, from: 7), BulkOrigin.expected(size: 300_000), "the versions must differ")
        let changed = await get(origin.url(size: size, query: "etag=%22v2%22&shift=7"), ["-o", stale.path, "-C", "-"])
        XCTAssertEqual(changed.status, 0, changed.stderr)
        XCTAssertEqual(try origin.events("REQUEST").last?[6], "\"v1\"")
        XCTAssertEqual(try origin.events("SENT").last?[2], String(size), "the origin did not send the whole new version")
        let written = try Data(contentsOf: stale)
        XCTAssertEqual(written.count, size)
        XCTAssertNil(BulkOrigin.firstMismatch(written, at: 7), "the new version was spliced onto the old bytes")
    }

    /// A weak ETag cannot validate a range: it is not kept, and the resume asks with the date.
    func testAWeakETagIsNotUsedForTheResume() async throws {
        let origin = try BulkOrigin()
        let target = try await partialFile(origin, size: 200_000, total: 500_000, query: "etag=W/%22w1%22", name: "weak.bin")
        let resumed = await get(origin.url(size: 500_000, query: "etag=W/%22w1%22"), ["-o", target.path, "-C", "-"])
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        XCTAssertEqual(try origin.events("REQUEST").last?[6], "Mon, 01 Dec 2025 00:00:00 GMT")
        XCTAssertEqual(try Data(contentsOf: target), BulkOrigin.expected(size: 500_000))
    }

    /// --max-filesize limits the file a resume makes, not the part it fetches: 600,000 bytes
    /// held plus 900,000 to come pass 1 MiB, so the answer is refused before any byte and the
    /// partial file stays. The old code allowed each response 1 MiB and wrote 1.5 MB.
    func testMaximumFileSizeCountsTheWholeFile() async throws {
        let origin = try BulkOrigin()
        let size = 1_500_000
        let target = try await partialFile(origin, size: 600_000, total: size, query: "chunked=0", name: "capped.bin")
        for query in ["chunked=0", "chunked=1"] {
            let capped = await get(origin.url(size: size, query: query), ["-o", target.path, "-C", "-", "--max-filesize", "1M"])
            XCTAssertEqual(capped.status, 1, query)
            XCTAssertEqual(capped.stderr, "relayfetch: error: the whole file would be larger than --max-filesize 1048576 bytes; "
                                          + "\(target.path) keeps what it had\n", query)
            XCTAssertEqual(try origin.events("REQUEST").last?[5], "bytes=600000-", query)
            XCTAssertEqual(try Data(contentsOf: target), BulkOrigin.expected(size: 600_000), query)
        }
        let allowed = await get(origin.url(size: size), ["-o", target.path, "-C", "-", "--max-filesize", "2M"])
        XCTAssertEqual(allowed.status, 0, allowed.stderr)
        XCTAssertEqual(try Data(contentsOf: target), BulkOrigin.expected(size: size))
        XCTAssertEqual(files, ["capped.bin"])
    }

    /// The file a download replaces gives the new one its permission bits: a private (0600) file
    /// stays private. The old code made every replaced file 0644.
    func testTheReplacedFileKeepsItsMode() async throws {
        let origin = try BulkOrigin()
        let target = folder.appendingPathComponent("private.bin")
        try Data("old".utf8).write(to: target)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: target.path)
        let run = await get(origin.url(size: 100_000), ["-o", target.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try Data(contentsOf: target), BulkOrigin.expected(size: 100_000))
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: target.path)[.posixPermissions] as? Int, 0o600)
    }
}
