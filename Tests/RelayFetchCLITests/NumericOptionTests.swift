import Foundation
import XCTest
import RelayFetchTestSupport

/// Every number an option takes (byte counts, durations, counts) goes through one checked
/// parser: a value that overflows, is negative, NaN or infinite, has a suffix other than K, M, G
/// or T, or is empty is bad usage (exit 2, one line naming the option), never a trap.
final class NumericOptionTests: XCTestCase {
    /// Bad values per command, run in the real executable: a trap there is a signal (exit 132),
    /// not the end of this test process. A value taken by mistake would start the command: its
    /// relay refuses connections, and `timeout` ends a run that would wait for it (exit 137).
    func testBadNumbersExitTwoNamingTheOption() throws {
        let relay = ["--relay", "https://127.0.0.1:1"]
        var cases: [(command: [String], option: String, value: String)] = []
        let byteValues = ["9999999999G", "99999999999999999999", "-5", "", "12Q", "1.5G", "10 M", "K", "nan", "8192T"]
        let secondValues = ["1e300", "-1", "nan", "inf", "", "10s", "0x"]
        for value in byteValues {
            cases += [(["crawl", "https://origin.test/"] + relay, "--max-bytes", value),
                      (["crawl", "https://origin.test/"] + relay, "--warc-max-size", value),
                      (["get", "https://origin.test/"] + relay, "--max-filesize", value),
                      (["page", "https://origin.test/"] + relay, "--max-page-bytes", value)]
        }
        for value in secondValues {
            for option in ["--connect-timeout", "--max-time", "--idle-timeout"] {
                cases += [(["get", "https://origin.test/"] + relay, option, value), (["crawl", "https://origin.test/"] + relay, option, value)]
            }
            for option in ["--delay", "--relay-wait", "--lease"] { cases.append((["crawl", "https://origin.test/"] + relay, option, value)) }
        }
        for value in ["99999999999999999999", "-1", "", "1e3", "nan"] {
            for option in ["--max-depth", "--max-pages", "--concurrency", "--per-host", "--retries"] {
                cases.append((["crawl", "https://origin.test/"] + relay, option, value))
            }
            for option in ["--frame-depth", "--import-depth", "--max-subresources"] {
                cases.append((["page", "https://origin.test/"] + relay, option, value))
            }
            cases.append((["oauth", "scenario.json"] + relay, "--parallel", value))
        }
        cases += [(["page", "https://origin.test/"] + relay, "--viewport", ""), (["page", "https://origin.test/"] + relay, "--viewport", "@")]
        // Values that parse but would overflow later (a year in ns, tasks per request slot).
        cases += [(["crawl", "https://origin.test/"] + relay, "--rate", "1e-300"), (["crawl", "https://origin.test/"] + relay, "--rate", "inf"),
                  (["crawl", "https://origin.test/"] + relay, "--concurrency", "9223372036854775807"),
                  (["crawl", "https://origin.test/"] + relay, "--max-pages", "9223372036854775808")]
        var failures: [String] = []
        for (command, option, value) in cases {
            // Both spellings: --option value and --option=value.
            for arguments in [command + [option, value], command + ["\(option)=\(value)"]] {
                let run = try TestServers.run(["/usr/bin/timeout", "-s", "KILL", "3", CommandRun.executable] + arguments)
                let lines = run.output.split(separator: "\n", omittingEmptySubsequences: false)
                if run.status != 2 || lines.count != 2 || !lines[0].hasPrefix("relayfetch: \(option) ") {
                    failures.append("\(arguments.dropFirst(command.count)): exit \(run.status): \(run.output.prefix(300))")
                }
            }
        }
        XCTAssertEqual(failures, [], "\(failures.count) of \(cases.count * 2) bad values")
    }

    /// A value with a line break or an escape sequence is quoted with both escaped: the error
    /// stays one line, and a terminal shows no colours or cursor moves from it.
    func testAValueIsQuotedOnOneLine() async {
        let run = await CommandRun.run(["crawl", "https://origin.test/", "--max-pages", "1\n\u{1B}[2Jx"])
        XCTAssertEqual(run.status, 2)
        XCTAssertEqual(run.stderr, "relayfetch: --max-pages needs a whole number from 1 to 1000000000000, not \"1\\n\\u{1B}[2Jx\"\n")
    }
}
