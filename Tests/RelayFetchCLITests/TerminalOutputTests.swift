import Foundation
import XCTest
import RelayFetchTestSupport

/// What a person at a terminal sees: `page` shows a live progress line on a terminal (run under
/// `script`, which gives it a pseudo-terminal) and none when stderr is not one.
final class TerminalOutputTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testProgressLineOnATerminalOnly() throws {
        let command = ([CommandRun.executable, "page", "https://origin.test/full/index.html", "--complete"] + CommandRun.relayArguments)
            .map { "'\($0)'" }.joined(separator: " ")
        let terminal = try TestServers.run(["/usr/bin/script", "-qfec", command, "/dev/null"])
        XCTAssertEqual(terminal.status, 0, terminal.output)
        XCTAssertTrue(terminal.output.contains("38/38 resources"), terminal.output)
        XCTAssertTrue(terminal.output.contains("\r\u{1B}[K"), "the line rewrites itself")
        let piped = try TestServers.run([CommandRun.executable, "page", "https://origin.test/full/index.html", "--complete"] + CommandRun.relayArguments)
        XCTAssertEqual(piped.status, 0)
        XCTAssertFalse(piped.output.contains("\u{1B}[K") || piped.output.contains("38/38 resources"), piped.output)
    }

    func testPageThroughOHTTP() async {
        let run = await CommandRun.run(["page", "https://origin.test/full/index.html", "--complete", "--ohttp-relay", "https://127.0.0.30/relay",
                                        "--ohttp-keys", TestServers.ohttpKeysFile.path, "--cacert", TestServers.caFile])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdoutText.hasPrefix("https://origin.test/full/index.html: 200, 38 subresources,"), run.stdoutText)
        XCTAssertTrue(run.stdoutText.contains("via ohttp:https://127.0.0.30/relay"), run.stdoutText)
    }
}
