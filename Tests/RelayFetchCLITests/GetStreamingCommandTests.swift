import Foundation
import XCTest
import RelayFetchTestSupport

/// `relayfetch get` streaming through relay A from the bulk origin: the size limit, -o written
/// under no name until complete, --keep-partial, and -C - resuming after a cut connection.
final class GetStreamingCommandTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        try TestServers.ensureRunning()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("get-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    private var files: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted() }

    func testStdoutGetsTheWholeBody() async throws {
        let origin = try BulkOrigin()
        let run = await CommandRun.run(["get", origin.url(size: 5 << 20).absoluteString] + CommandRun.relayArguments)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout.count, 5 << 20)
        XCTAssertNil(BulkOrigin.firstMismatch(run.stdout, at: 0))
    }

    /// -o into a file that takes no more bytes (/dev/full) fails at once, naming the file.
    func testAFullDeviceFailsClearly() async throws {
        let origin = try BulkOrigin()
        let run = await CommandRun.run(["get", origin.url(size: 256 << 20).absoluteString, "-o", "/dev/full"] + CommandRun.relayArguments)
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.stderr, "relayfetch: error: cannot write /dev/full: No space left on device\n")
        XCTAssertLessThan(try origin.mostBytesSent(), 64 << 20)
    }

    func testMaximumFileSizeFailsClearlyAndLeavesNoFile() async throws {
        let origin = try BulkOrigin()
        let target = folder.appendingPathComponent("big.bin")
        for query in [nil, "chunked=1"] {
            let run = await CommandRun.run(["get", origin.url(size: 4 << 20, query: query).absoluteString, "-o", target.path,
                                            "--max-filesize", "1M"] + CommandRun.relayArguments)
            XCTAssertEqual(run.status, 1, "\(query ?? "declared length")")
            XCTAssertEqual(run.stderr, "relayfetch: error: the body is larger than --max-filesize 1048576 bytes; "
                                       + "no file was written (--keep-partial keeps what arrived)\n")
            XCTAssertEqual(files, [], "\(query ?? "declared length")")
        }
        let kept = await CommandRun.run(["get", origin.url(size: 4 << 20, query: "chunked=1").absoluteString, "-o", target.path,
                                         "--max-filesize", "1M", "--keep-partial"] + CommandRun.relayArguments)
        XCTAssertEqual(kept.status, 1)
        XCTAssertTrue(kept.stderr.contains("what arrived is kept in \(target.path)"), kept.stderr)
        XCTAssertEqual(files, ["big.bin"])
        let partial = try Data(contentsOf: target)
        XCTAssertLessThanOrEqual(partial.count, 1 << 20)
        XCTAssertNil(BulkOrigin.firstMismatch(partial, at: 0))
    }

    /// A cut connection under -o: the earlier file stays as it was, and nothing else appears.
    func testOutputFileIsReplacedOnlyByAWholeBody() async throws {
        let origin = try BulkOrigin()
        let target = folder.appendingPathComponent("file.bin")
        try Data("old".utf8).write(to: target)
        let cut = await CommandRun.run(["get", origin.url(size: 8 << 20, query: "drop=3000000").absoluteString, "-o", target.path]
                                       + CommandRun.relayArguments)
        XCTAssertEqual(cut.status, 1)
        XCTAssertEqual(try origin.events("SENT").last?[3], "dropped", "the origin's log does not show the cut")
        XCTAssertEqual(try String(contentsOf: target, encoding: .utf8), "old")
        XCTAssertEqual(files, ["file.bin"])
        let whole = await CommandRun.run(["get", origin.url(size: 8 << 20).absoluteString, "-o", target.path] + CommandRun.relayArguments)
        XCTAssertEqual(whole.status, 0, whole.stderr)
        XCTAssertEqual(try Data(contentsOf: target), BulkOrigin.expected(size: 8 << 20))
        XCTAssertEqual(files, ["file.bin"])
    }

    /// -C -: a connection cut mid-file is resumed in the same run with Range + If-Range (the
    /// file's time, set from Last-Modified), and the joined file is the whole resource.
    func testContinueResumesAfterTheConnectionDrops() async throws {
        let origin = try BulkOrigin()
        let target = folder.appendingPathComponent("resumed.bin")
        let size = 12 << 20
        let run = await CommandRun.run(["get", origin.url(size: size, query: "drop=5000000").absoluteString, "-o", target.path, "-C", "-", "-v"]
                                       + CommandRun.relayArguments)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("resuming from byte 5000000"), run.stderr)
        XCTAssertEqual(try Data(contentsOf: target), BulkOrigin.expected(size: size))
        let requests = try origin.events("REQUEST")
        XCTAssertEqual(requests.count, 2)
        XCTAssertEqual(requests.last?[5], "bytes=5000000-")
        XCTAssertEqual(requests.last?[6], "Mon, 01 Dec 2025 00:00:00 GMT")
        // Offsets count identity bytes: the first request may take any encoding, the Range one none.
        XCTAssertNotEqual(requests.first?[7], "-", "the origin's log does not show Accept-Encoding")
        XCTAssertEqual(requests.last?[7], "-", "Accept-Encoding was sent on the Range request")
        XCTAssertEqual(try origin.events("SENT").map { $0[2] }, ["5000000", String(size - 5_000_000)])
        XCTAssertEqual(files, ["resumed.bin"])
    }

    /// A partial file whose resource changed since (a newer Last-Modified, and other bytes: the
    /// new version is the pattern shifted by 7) is replaced whole, not spliced; a complete one is
    /// left alone (416).
    func testContinueStartsOverWhenTheResourceChanged() async throws {
        let origin = try BulkOrigin()
        let target = folder.appendingPathComponent("changed.bin")
        try BulkOrigin.expected(size: 1000).write(to: target)
        let newVersion = origin.url(size: 4096, query: "modified=1800000000&shift=7")
        XCTAssertNotEqual(BulkOrigin.expected(size: 1000, from: 7), BulkOrigin.expected(size: 1000), "the versions must differ")
        let changed = await CommandRun.run(["get", newVersion.absoluteString, "-o", target.path, "-C", "-"] + CommandRun.relayArguments)
        XCTAssertEqual(changed.status, 0, changed.stderr)
        XCTAssertEqual(try Data(contentsOf: target), BulkOrigin.expected(size: 4096, from: 7))
        XCTAssertEqual(try origin.events("REQUEST").last?[5], "bytes=1000-")
        XCTAssertEqual(try origin.events("SENT").last?[2], "4096", "the origin sent the whole resource")
        let complete = await CommandRun.run(["get", newVersion.absoluteString, "-o", target.path, "-C", "-"] + CommandRun.relayArguments)
        XCTAssertEqual(complete.status, 0, complete.stderr)
        XCTAssertEqual(try origin.events("SENT").last?[2], "0", "a complete file asked for more bytes")
        XCTAssertEqual(try Data(contentsOf: target), BulkOrigin.expected(size: 4096, from: 7))
    }

    /// A destination that is not a regular file is written, never replaced (curl -o /dev/null).
    func testDevicesAndSymbolicLinksAreWrittenThroughNotReplaced() async throws {
        let origin = try BulkOrigin()
        let run = await CommandRun.run(["get", origin.url(size: 1 << 20).absoluteString, "-o", "/dev/null"] + CommandRun.relayArguments)
        XCTAssertEqual(run.status, 0, run.stderr)
        let device = try FileManager.default.attributesOfItem(atPath: "/dev/null")[.type] as? FileAttributeType
        XCTAssertEqual(device, .typeCharacterSpecial, "/dev/null was replaced")
        let real = folder.appendingPathComponent("real.bin"), link = folder.appendingPathComponent("link.bin")
        try Data("old".utf8).write(to: real)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real)
        let linked = await CommandRun.run(["get", origin.url(size: 1000).absoluteString, "-o", link.path] + CommandRun.relayArguments)
        XCTAssertEqual(linked.status, 0, linked.stderr)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link.path), real.path)
        XCTAssertEqual(try Data(contentsOf: real), BulkOrigin.expected(size: 1000))
        XCTAssertEqual(files, ["link.bin", "real.bin"])
    }

    func testStreamingOptionsRejectBadUsage() async {
        let cases: [([String], String)] = [
            (["get", "https://origin.test/", "-C", "-"], "-C - resumes a file: it needs -o FILE"),
            (["get", "https://origin.test/", "-C", "100", "-o", "x"], "-C takes \"-\""),
            (["get", "https://origin.test/", "--max-filesize", "lots"], "--max-filesize needs a byte count"),
            (["get", "https://origin.test/", "-C", "-", "-o", "x", "-i"], "-C - and -i do not go together"),
        ]
        for (arguments, expected) in cases {
            let run = await CommandRun.run(arguments)
            XCTAssertEqual(run.status, 2, "\(arguments)")
            XCTAssertTrue(run.stderr.contains(expected), "expected \(expected)\ngot \(run.stderr)")
        }
    }
}
