import Foundation
import XCTest
import RelayFetchTestSupport

/// The last curl 8 options of issue 25 for `get`, through relay A against the echo origin
/// (Samples/servers/hostile/echo_origin.py), which logs every request it received: `-e
/// "URL;auto"`, `--post301/302/303`, `-O`/`--remote-name-all`, and -Z's one progress meter.
final class GetCurlGapsCommandTests: XCTestCase {
    private var origin: HostileServer!

    override func setUpWithError() throws {
        try TestServers.ensureRunning()
        origin = try HostileServer(script: "echo_origin.py")
    }

    override func tearDown() { origin?.stop() }

    private func url(_ path: String) -> String { "https://origin.test:\(origin.port)\(path)" }

    /// The requests the origin logged whose target starts with `prefix`, in order; throws without a log.
    private func received(startingWith prefix: String) throws -> [[String: Any]] {
        try origin.events().compactMap { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let target = object["target"] as? String, target.hasPrefix(prefix) else { return nil }
            return object
        }
    }

    private func header(_ request: [String: Any]?, _ name: String) -> String? {
        (request?["headers"] as? [[String]])?.first { $0[0].lowercased() == name }?[1]
    }

    /// The path that answers STATUS with a redirect to /echo?MARKER.
    private func redirectPath(_ status: Int, to marker: String) -> String {
        "/redirect/\(status)?to=" + "/echo?\(marker)".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    }

    private func redirect(_ status: Int, to marker: String) -> String { url(redirectPath(status, to: marker)) }

    func testAutoRefererNamesTheURLEachRedirectCameFrom() async throws {
        let cases: [(String, String?, String)] = [
            ("https://start.example/page;auto", "https://start.example/page", "auto-url"),
            (";auto", nil, "auto-only"),
            ("https://start.example/page", "https://start.example/page", "plain"),  // the control: curl keeps a plain -e
        ]
        for (value, first, label) in cases {
            let marker = TestServers.marker(label)
            let start = redirect(302, to: marker)
            let run = await CommandRun.run(["get", start, "-e", value, "-o", "/dev/null"] + CommandRun.relayArguments)
            XCTAssertEqual(run.status, 0, run.stderr)
            let redirected = try received(startingWith: redirectPath(302, to: marker))
            let followed = try received(startingWith: "/echo?\(marker)")
            XCTAssertEqual(redirected.count, 1, label)
            XCTAssertEqual(followed.count, 1, label)
            XCTAssertEqual(header(redirected.first, "referer"), first, "first request, \(label)")
            XCTAssertEqual(header(followed.first, "referer"), label == "plain" ? first : start, "after the redirect, \(label)")
            XCTAssertEqual(followed.first?["peer"] as? String, "127.0.0.11", "through relay A")
        }
    }

    func testPost30xKeepsThePOSTAndItsBodyOnlyWhereAsked() async throws {
        for status in [301, 302, 303] {
            let kept = TestServers.marker("post\(status)"), changed = TestServers.marker("get\(status)")
            let asked = await CommandRun.run(["get", redirect(status, to: kept), "-d", "a=\(status)", "--post\(status)", "-o", "/dev/null"]
                                             + CommandRun.relayArguments)
            XCTAssertEqual(asked.status, 0, asked.stderr)
            let plain = await CommandRun.run(["get", redirect(status, to: changed), "-d", "a=\(status)", "-o", "/dev/null"] + CommandRun.relayArguments)
            XCTAssertEqual(plain.status, 0, plain.stderr)
            let post = try received(startingWith: "/echo?\(kept)").first
            XCTAssertEqual(post?["method"] as? String, "POST", "--post\(status)")
            XCTAssertEqual(post?["body"] as? String, "a=\(status)", "--post\(status)")
            XCTAssertEqual(header(post, "content-type"), "application/x-www-form-urlencoded")
            let get = try received(startingWith: "/echo?\(changed)").first
            XCTAssertEqual(get?["method"] as? String, "GET", "without --post\(status)")
            XCTAssertEqual(get?["body"] as? String, "", "without --post\(status)")
        }
        // Only the status asked for: --post301 leaves a 302 turning the POST into a GET.
        let other = TestServers.marker("post301-on-302")
        let run = await CommandRun.run(["get", redirect(302, to: other), "-d", "x", "--post301", "-o", "/dev/null"] + CommandRun.relayArguments)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try received(startingWith: "/echo?\(other)").first?["method"] as? String, "GET")
    }

    func testRemoteNameWritesTheLastPathSegmentIntoTheCurrentFolder() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("remote-name-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let previous = FileManager.default.currentDirectoryPath
        XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(folder.path))
        defer {
            XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(previous))
            try? FileManager.default.removeItem(at: folder)
        }
        let marker = TestServers.marker("remote")
        let one = await CommandRun.run(["get", url("/echo/report.json?\(marker)"), "-O"] + CommandRun.relayArguments)
        XCTAssertEqual(one.status, 0, one.stderr)
        XCTAssertEqual(one.stdout, Data(), "the body went to the file")
        let report = try String(contentsOf: folder.appendingPathComponent("report.json"), encoding: .utf8)
        XCTAssertTrue(report.contains("/echo/report.json?\(marker)"), report)
        // -o for the first URL, then --remote-name-all names the rest; "%2F" stays as it is (no folder).
        let all = await CommandRun.run(["get", url("/echo/first?\(marker)"), url("/echo/a.txt?\(marker)"), url("/echo/x%2Fy?\(marker)"),
                                        "-o", "first.out", "--remote-name-all"] + CommandRun.relayArguments)
        XCTAssertEqual(all.status, 0, all.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(), ["a.txt", "first.out", "report.json", "x%2Fy"])
        XCTAssertEqual(try received(startingWith: "/echo/").map { $0["peer"] as? String }, Array(repeating: "127.0.0.11", count: 4))
        // curl refuses a URL without a file name.
        for bare in [url("/echo/"), url(""), url("/echo/..")] {
            let run = await CommandRun.run(["get", bare, "-O"] + CommandRun.relayArguments)
            XCTAssertEqual(run.status, 2, "\(bare): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains("has no file name at the end of its path: give -o FILE"), run.stderr)
        }
        XCTAssertEqual(try received(startingWith: "/echo/").count, 4, "a refused -O sends nothing")
    }

    /// -Z shows one meter for all its transfers on a terminal (script(1) gives it one), none in a pipe.
    func testParallelTransfersShareOneMeterOnATerminal() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parallel-meter-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let marker = TestServers.marker("meter")
        let arguments = [CommandRun.executable, "get", "-Z"] + (1...3).flatMap { [url("/echo?\(marker)-\($0)"), "-o", folder.appendingPathComponent("\($0)").path] }
            + CommandRun.relayArguments
        let terminal = try TestServers.run(["/usr/bin/script", "-qec", arguments.map { "'\($0)'" }.joined(separator: " "), "/dev/null"])
        XCTAssertEqual(terminal.status, 0, terminal.output)
        XCTAssertTrue(terminal.output.contains("3/3 done, 0 running"), terminal.output)
        XCTAssertTrue(terminal.output.contains("100%"), terminal.output)
        XCTAssertEqual(terminal.output.components(separatedBy: "\n").filter { $0.contains("done,") }.count, 1, "one meter line: \(terminal.output)")
        let pipe = try TestServers.run(arguments)
        XCTAssertEqual(pipe.status, 0, pipe.output)
        XCTAssertEqual(pipe.output, "", "no meter into a pipe")
        XCTAssertEqual(try received(startingWith: "/echo?\(marker)").count, 6)
    }
}
