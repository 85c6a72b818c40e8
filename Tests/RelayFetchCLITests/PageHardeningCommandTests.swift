import Foundation
import XCTest
import RelayFetchTestSupport

/// `relayfetch page` against a hostile origin (Samples/servers/hostile/page_origin.py): `--save`
/// never writes outside its folder, and limits end with a warning naming their option.
final class PageHardeningCommandTests: XCTestCase {
    private var origin: HostileServer!
    private var sandbox: URL!

    override func setUpWithError() throws {
        let corpus = TestServers.repository.appendingPathComponent("Tests/OfflineCopyTests/Fixtures/hostile-paths.txt")
        // The origin serves these paths; without the file it answers nothing and the test would
        // blame the relay.
        guard FileManager.default.fileExists(atPath: corpus.path) else { throw TestServerError(description: "the hostile paths corpus \(corpus.path) is missing") }
        origin = try HostileServer(script: "page_origin.py", arguments: ["--corpus", corpus.path])
        sandbox = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-sandbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: sandbox, withIntermediateDirectories: true)
    }

    override func tearDown() {
        origin?.stop()
        if let sandbox { try? FileManager.default.removeItem(at: sandbox) }
    }

    /// Every file below `directory` (links not followed), relative paths.
    private func entries(_ directory: URL) throws -> [String] {
        try FileManager.default.subpathsOfDirectory(atPath: directory.path)
    }

    func testSaveKeepsHostileSubresourcesInsideTheFolderAndNeverFollowsPlantedLinks() async throws {
        let fileManager = FileManager.default
        let save = sandbox.appendingPathComponent("save")
        let outside = sandbox.appendingPathComponent("outside")
        let victim = outside.appendingPathComponent("victim.txt")
        try fileManager.createDirectory(at: outside, withIntermediateDirectories: true)
        try Data("ORIGINAL".utf8).write(to: victim)
        // Links planted where the copy will want a folder (link/) and a file (planted.png).
        let hostFolder = save.appendingPathComponent("origin.test_\(origin.port)")
        try fileManager.createDirectory(at: hostFolder, withIntermediateDirectories: true)
        try fileManager.createSymbolicLink(at: hostFolder.appendingPathComponent("link"), withDestinationURL: outside)
        try fileManager.createSymbolicLink(at: hostFolder.appendingPathComponent("planted.png"), withDestinationURL: victim)

        let run = await CommandRun.run(["page", "https://origin.test:\(origin.port)/traversal", "--save", save.path] + CommandRun.relayArguments)
        XCTAssertEqual(run.status, 0, run.stderr)
        let served = try origin.events().filter { $0.hasPrefix("REQ\t") }.count
        XCTAssertGreaterThan(served, 35, "the origin served the hostile subresources")

        XCTAssertEqual(try fileManager.contentsOfDirectory(atPath: sandbox.path).sorted(), ["outside", "save"], "nothing beside the folder")
        XCTAssertEqual(try entries(outside), ["victim.txt"], "nothing written through the folder link")
        XCTAssertEqual(try String(contentsOf: victim, encoding: .utf8), "ORIGINAL", "the file link was replaced, not written through")
        XCTAssertTrue(run.stderr.contains("relayfetch: warning: not saved: https://origin.test:\(origin.port)/link/escape-x.png"), run.stderr)
        XCTAssertTrue(run.stderr.contains("not followed"), run.stderr)

        var hostile = 0
        for path in try entries(save) {
            let url = save.appendingPathComponent(path)
            let values = try url.resourceValues(forKeys: [.isSymbolicLinkKey, .isRegularFileKey])
            if path.hasSuffix("/link") { XCTAssertEqual(values.isSymbolicLink, true); continue }
            XCTAssertNotEqual(values.isSymbolicLink, true, "\(path) is not a link")
            if values.isRegularFile == true, try Data(contentsOf: url).starts(with: Data("HOSTILE-BYTES".utf8)) { hostile += 1 }
        }
        XCTAssertGreaterThan(hostile, 30, "the hostile bodies were saved inside the folder")
        let temporary = fileManager.temporaryDirectory.path
        for name in try entries(sandbox) + (try fileManager.contentsOfDirectory(atPath: temporary)) where name.contains("escape-") {
            XCTAssertTrue(name.hasPrefix("save/"), "\(name) escaped")
        }
        XCTAssertFalse(fileManager.fileExists(atPath: "/escape-d.png"))
    }

    func testLimitsEndWithAWarningNamingTheOption() async throws {
        let run = await CommandRun.run(["page", "https://origin.test:\(origin.port)/many?n=5000", "--max-subresources", "25", "--json"]
                                       + CommandRun.relayArguments)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stderr, "relayfetch: warning: stopped at 25 subresources (raise with --max-subresources)\n")
        let summary = try XCTUnwrap(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
        XCTAssertEqual((summary["resources"] as? [Any])?.count, 25)
        XCTAssertEqual(summary["limitsReached"] as? [String], ["stopped at 25 subresources (maximumSubresources)"])

        let imports = await CommandRun.run(["page", "https://origin.test:\(origin.port)/import-page", "--import-depth", "2"] + CommandRun.relayArguments)
        XCTAssertEqual(imports.status, 0, imports.stderr)
        XCTAssertTrue(imports.stderr.contains("cut at depth 2 (raise with --import-depth)"), imports.stderr)

        for (option, value) in [("--frame-depth", "11"), ("--import-depth", "33"), ("--max-subresources", "0"), ("--max-page-bytes", "12Q"),
                                ("--max-page-bytes", "65G")] {
            let bad = await CommandRun.run(["page", "https://origin.test/", option, value])
            XCTAssertEqual(bad.status, 2, "\(option) \(value)")
            XCTAssertTrue(bad.stderr.contains(option), bad.stderr)
        }
    }
}
