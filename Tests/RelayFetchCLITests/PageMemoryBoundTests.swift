import Foundation
import XCTest
import RelayFetchTestSupport

/// `relayfetch page`, run as a child process, against style sheets of a million url()s from the
/// hostile origin (Samples/servers/hostile/page_origin.py, through relay A): the process's peak
/// resident size stays under 200 MB whatever the sheet holds, and a warning names the limit
/// that cut the sheet short. Under a sanitizer the bound grows by the sanitizer's cost for what
/// the program holds (`SanitizedChild`).
final class PageMemoryBoundTests: XCTestCase {
    private var origin: HostileServer!

    override func setUpWithError() throws { origin = try HostileServer(script: "page_origin.py") }
    override func tearDown() { origin?.stop() }

    private static let bound = Int(Double(200 << 20) * SanitizedChild.scale)

    /// A million rules, each naming an image (about 38 MB of CSS), and a million images in the
    /// one rule that applies to <body> (about 17 MB): the page still loads, the sheet in full
    /// from the origin, with the style limits named.
    func testStyleSheetOfAMillionURLsKeepsThePageUnderTwoHundredMegabytes() throws {
        for (path, sheet) in [("/css-page?n=1000000", "/big.css"), ("/css-value-page?n=1000000", "/value.css")] {
            let run = try ChildProcessPeak.run([CommandRun.executable, "page", "https://origin.test:\(origin.port)\(path)"]
                                               + CommandRun.relayArguments)
            XCTAssertEqual(run.status, 0, "\(path): \(run.stderr)")
            XCTAssertTrue(run.stdout.hasPrefix("https://origin.test:\(origin.port)\(path): 200"), run.stdout)
            XCTAssertLessThan(run.peakBytes, Self.bound, "\(path): peak resident size \(run.peakBytes >> 20) MiB, over \(Self.bound >> 20) MiB")
            XCTAssertTrue(run.stderr.contains("relayfetch: warning: style sheets cut at 8388608 bytes for the page (raise with --max-style-bytes)"),
                          "\(path): \(run.stderr)")
            let served = try origin.events().filter { $0.hasPrefix("REQ\t\(sheet)?") }
            XCTAssertEqual(served.count, 1, "the origin served \(sheet) once")
            print("\(path): peak resident size \(run.peakBytes >> 20) MiB")
        }
    }

    /// Within its text limit, a sheet with more rules than a document may apply is cut at the
    /// rule limit, and says so.
    func testRuleLimitIsNamedWhenItCutsTheCascade() throws {
        let run = try ChildProcessPeak.run([CommandRun.executable, "page", "https://origin.test:\(origin.port)/css-page?n=5000",
                                            "--max-style-rules", "1000"] + CommandRun.relayArguments)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stderr, "relayfetch: warning: style rules cut at 1000 for a document (raise with --max-style-rules)\n")
    }
}
