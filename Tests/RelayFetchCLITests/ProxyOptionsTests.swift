import XCTest
import RelayFetchTestSupport

/// `relayfetch proxy` takes the relay options every command has, less those that describe a
/// fetch: its help lists none of them, and given one it stops with a usage error (exit 2)
/// naming it, rather than ignore it. Old code: listed them all and started with them.
final class ProxyOptionsTests: XCTestCase {
    private static let meaningless: [(option: String, value: String?)] = [
        ("--max-time", "5"), ("--idle-timeout", "5"), ("--origin-protocol", "h3"),
        ("--resolve", "origin.test:443:127.0.0.21"), ("--ohttp-relay", "https://127.0.0.11:4433/ohttp"),
        ("--ohttp-keys", "/dev/null"),
    ]

    func testHelpListsNoFetchOnlyOption() async {
        let help = await CommandRun.run(["proxy", "--help"])
        XCTAssertEqual(help.status, 0)
        for (option, _) in Self.meaningless {
            XCTAssertFalse(help.stdoutText.contains(option), "proxy --help lists \(option)")
        }
        for kept in ["--relay-protocol", "--connect-timeout", "--match-domain", "--profile", "--doh", "--cacert"] {
            XCTAssertTrue(help.stdoutText.contains(kept), "proxy --help lacks \(kept)")
        }
    }

    func testFetchOnlyOptionsAreUsageErrors() async {
        for (option, value) in Self.meaningless {
            let run = await CommandRun.run(["proxy", "--check", "--relay", TestServers.http2RelayAURL.absoluteString, option] + (value.map { [$0] } ?? []))
            XCTAssertEqual(run.status, 2, "\(option): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains("\(option) does not apply to proxy"), "\(option): \(run.stderr)")
        }
    }

    /// In a later `--chain` group too, written apart or with "=" (the merge of `--chain` pools
    /// and this refusal first checked the first group only).
    func testFetchOnlyOptionsAreUsageErrorsInEveryChainGroup() async {
        let relay = TestServers.http2RelayAURL.absoluteString
        for tail in [["--max-time", "5"], ["--origin-protocol=h3"]] {
            let run = await CommandRun.run(["proxy", "--check", "--relay", relay, "--chain", "--relay", relay] + tail)
            XCTAssertEqual(run.status, 2, "\(tail): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains("\(tail[0].prefix { $0 != "=" }) does not apply to proxy"), "\(tail): \(run.stderr)")
        }
    }
}
