import Foundation
import XCTest
@testable import RelayFetchCLI

/// The pieces of `get`'s command line that need no server: curl's config syntax, bundled short
/// options, -w formats and the retry schedule.
final class GetArgumentsTests: XCTestCase {
    func testConfigFileReadsAsCurlReadsIt() throws {
        let text = "# comment\n  url = \"https://a.test/x y\"\nsilent\n-o out.txt\nheader: \"X-A: \\\"q\\\"\\t1\"\ndata=a=1\n"
        XCTAssertEqual(try CurlConfigFile.arguments(text, source: "f"),
                       ["https://a.test/x y", "--silent", "-o", "out.txt", "--header", "X-A: \"q\"\t1", "--data", "a=1"])
        XCTAssertThrowsError(try CurlConfigFile.arguments("json = \"{\n", source: "f")) {
            XCTAssertEqual("\($0)", "config f line 1: a quoted value has no closing quote")
        }
    }

    func testBundledShortOptionsAndValuesThatLookLikeOptions() {
        XCTAssertEqual(GetArguments.unbundled(["-sSL", "-XPOST", "-d@body", "-H", "-x: y", "--data", "-sS", "-Zo", "f", "-k"]),
                       ["-s", "-S", "-L", "-X", "POST", "-d", "@body", "-H", "-x: y", "--data", "-sS", "-Z", "-o", "f", "-k"])
    }

    func testWriteOutRendersCurlsVariablesAndSwitchesStreams() throws {
        var report = TransferReport(url: URL(string: "https://a.test/")!, method: "POST")
        report.bytesDownloaded = 12
        report.seconds = 0.5
        let rendered = try WriteOut(format: "%{http_code} %{size_download} %{time_total} 100%%\\n%{stderr}%{relay_chain}|%{method}").render(report)
        XCTAssertEqual(rendered.filter { $0.0 == .stdout }.map(\.1).joined(), "000 12 0.500000 100%\n")
        XCTAssertEqual(rendered.filter { $0.0 == .stderr }.map(\.1).joined(), "|POST", "no response: an empty relay chain")
        XCTAssertThrowsError(try WriteOut(format: "%{nope}"))
        XCTAssertEqual(try GetCommand.parse(["https://a.test/", "--max-redirs", "-1", "--direct"], standardInput: { Data() })?.maximumRedirects, -1)
    }

    func testRetryScheduleDoublesHonoursRetryAfterAndStopsAtTheMaximumTime() {
        let start = Date(timeIntervalSince1970: 1_000_000)
        var schedule = RetryPolicy.Schedule(RetryPolicy(count: 4, maximumTime: 30), started: start)
        XCTAssertEqual(schedule.nextWait(retryAfter: nil, now: start), 1)
        XCTAssertEqual(schedule.nextWait(retryAfter: "5", now: start), 5, "a longer Retry-After wins")
        XCTAssertEqual(schedule.nextWait(retryAfter: nil, now: start), 4, "the doubling went on under it")
        XCTAssertNil(schedule.nextWait(retryAfter: "40", now: start), "a Retry-After past --retry-max-time ends the retries")
        var fixed = RetryPolicy.Schedule(RetryPolicy(count: 1, delay: 0.25), started: start)
        XCTAssertEqual(fixed.nextWait(retryAfter: nil, now: start), 0.25)
        XCTAssertNil(fixed.nextWait(retryAfter: nil, now: start))
    }
}
