import Foundation
import XCTest
import Crawler
import RelayFetchTestSupport

/// `relayfetch crawl` whose outputs fail, run as a process (a trap would kill it): a full file
/// system (a small tmpfs) or /dev/full under --jsonl, and a WARC folder that refuses its next
/// file at rotation. The crawl stops with exit 1 and one clear error; the page being written is
/// not marked done, so the same command once there is room writes it, and every page ends in
/// the outputs exactly once (one page at a time, so nothing else was in flight).
final class CrawlOutputFailureCommandTests: XCTestCase {
    private var fileSystem: SmallFileSystem?
    private var store: URL!

    override func setUpWithError() throws {
        try TestServers.ensureRunning()
        guard FileManager.default.isExecutableFile(atPath: CommandRun.executable) else {
            throw TestServerError(description: "build the executable first (swift build): \(CommandRun.executable)")
        }
        store = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-crawl-\(UUID().uuidString).db")
    }

    override func tearDown() {
        fileSystem?.unmount()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store.path + suffix) }
    }

    /// One page at a time unless `oneAtATime` is false (then the defaults: 8 workers, 2 per host).
    private func crawl(_ site: CrawlSite, _ outputs: [String], oneAtATime: Bool = true) throws -> (status: Int32, output: String) {
        // Killed after a minute (status 124): a crawl that hangs fails the test instead of the suite.
        try TestServers.run(["/usr/bin/timeout", "60", CommandRun.executable, "crawl", site.origin + "/", "--store", store.path, "--strip-query-param", "utm_source"]
                            + (oneAtATime ? ["--concurrency", "1"] : []) + outputs + CommandRun.relayArguments)
    }

    /// The URLs the store holds as claimed and not done.
    private func claimed() throws -> [String] { try SQLiteCrawlStore(path: store.path).urls(in: .claimed) }

    func testAFullFileSystemUnderJSONLinesStopsTheCrawlAndAResumeWritesThePage() throws {
        let small = try SmallFileSystem(options: "size=64k")
        fileSystem = small
        let site = try CrawlSite(pages: 200)
        let jsonl = small.path.appendingPathComponent("pages.jsonl")
        let full = try crawl(site, ["--jsonl", jsonl.path])
        XCTAssertEqual(full.status, 1, full.output)
        XCTAssertTrue(full.output.contains("relayfetch: error: crawl output: cannot write \(jsonl.path): No space left on device; the crawl stopped"),
                      full.output)
        XCTAssertTrue(full.output.contains("the crawl stopped before marking that page done: make room, then run the same command to resume"), full.output)
        let unwritten = try claimed()
        XCTAssertEqual(unwritten.count, 1, "the page being written is not marked done")
        let firstLines = try jsonLines(jsonl)
        XCTAssertFalse(firstLines.contains { $0 == unwritten.first }, "nor is it in the output")
        XCTAssertLessThan(firstLines.count, try site.expectedPaths().count, "the crawl stopped early")

        try small.remount(options: "size=4m")
        let resumed = try crawl(site, ["--jsonl", jsonl.path])
        XCTAssertEqual(resumed.status, 0, resumed.output)
        let lines = try jsonLines(jsonl)
        XCTAssertEqual(Dictionary(grouping: lines, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted(), [], "no page written twice")
        XCTAssertTrue(lines.contains(try XCTUnwrap(unwritten.first)), "the resumed crawl wrote the page")
        let paths = Set(lines.compactMap { URLComponents(string: $0)?.percentEncodedPath })
        XCTAssertTrue(Set(try site.expectedPaths()).isSubset(of: paths), "every page is in the output")
    }

    /// With the default eight workers, two on the one host: the others, waiting for the host,
    /// are stopped too (they waited forever on the failed workers' claims: the crawl hung).
    func testDevFullUnderJSONLinesExitsOneWithAClearError() throws {
        let site = try CrawlSite(pages: 50)
        let started = Date()
        let run = try crawl(site, ["--jsonl", "/dev/full"], oneAtATime: false)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "the crawl stopped at once")
        XCTAssertEqual(run.status, 1, run.output)
        XCTAssertTrue(run.output.contains("relayfetch: error: crawl output: cannot write /dev/full: No space left on device; the crawl stopped"), run.output)
        XCTAssertEqual(run.output.split(separator: "\n").count, 1, "one error line: \(run.output)")
        XCTAssertEqual(try SQLiteCrawlStore(path: store.path).counts()[.fetched] ?? 0, 0, "no page marked done")
        XCTAssertFalse(try claimed().isEmpty, "the pages being written stay claimed, for a resume")
    }

    /// Room for two files: the first WARC file, the second after one rotation, and no third.
    func testAWARCRotationThatCannotCreateItsFileStopsTheCrawlAndAResumeArchivesThePage() throws {
        let small = try SmallFileSystem(options: "size=4m,nr_inodes=3")
        fileSystem = small
        let site = try CrawlSite(pages: 40)
        let warc = small.path
        let refused = try crawl(site, ["--warc", warc.path, "--warc-max-size", "8K"])
        XCTAssertEqual(refused.status, 1, refused.output)
        XCTAssertTrue(refused.output.contains("relayfetch: error: crawl output: cannot open \(warc.path)/relayfetch-crawl-"), refused.output)
        XCTAssertTrue(refused.output.contains("-00002.warc: No space left on device; the crawl stopped"), refused.output)
        let unwritten = try XCTUnwrap(try claimed().first, "the page being written is not marked done")
        XCTAssertFalse(try archivedURLs(warc).contains(unwritten))

        try small.remount(options: "nr_inodes=100")
        let resumed = try crawl(site, ["--warc", warc.path, "--warc-max-size", "8K"])
        XCTAssertEqual(resumed.status, 0, resumed.output)
        let archived = try archivedURLs(warc)
        XCTAssertEqual(Dictionary(grouping: archived, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted(), [], "no page archived twice")
        XCTAssertTrue(archived.contains(unwritten), "the resumed crawl archived the page")
        let fetched = Set(try SQLiteCrawlStore(path: store.path).urls(in: .fetched))
        XCTAssertEqual(Set(archived), fetched, "every fetched page is archived")
    }

    /// The URL of each JSON line, every line whole JSON.
    private func jsonLines(_ file: URL) throws -> [String] {
        let text = try String(contentsOf: file, encoding: .utf8)
        XCTAssertTrue(text.isEmpty || text.hasSuffix("\n"), "the file ends with a whole line")
        return try text.split(separator: "\n").map { line in
            let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
            return try XCTUnwrap(record["url"] as? String)
        }
    }

    /// The target URIs of the response records in every WARC file of `folder`, as warcio reads
    /// them (each file checked whole by warcio first).
    private func archivedURLs(_ folder: URL) throws -> [String] {
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".warc") }.sorted()
            .map { folder.appendingPathComponent($0).path }
        guard !files.isEmpty else { return [] }
        let check = try TestServers.run([HostileServer.python, "-m", "warcio.cli", "check"] + files)
        XCTAssertEqual(check.status, 0, check.output)
        let script = """
            import sys
            from warcio.archiveiterator import ArchiveIterator
            for name in sys.argv[1:]:
                with open(name, 'rb') as f:
                    for record in ArchiveIterator(f):
                        if record.rec_type == 'response':
                            print(record.rec_headers.get_header('WARC-Target-URI'))
            """
        let listed = try TestServers.run([HostileServer.python, "-c", script] + files)
        XCTAssertEqual(listed.status, 0, listed.output)
        return listed.output.split(separator: "\n").map(String.init)
    }
}
