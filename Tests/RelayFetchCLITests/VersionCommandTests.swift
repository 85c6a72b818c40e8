import Foundation
import XCTest

/// `relayfetch version`: each C library is reported by the module that links it, in one list.
final class VersionCommandTests: XCTestCase {
    func testEveryLinkedLibraryIsListedWithItsVersion() async {
        let run = await CommandRun.run(["version"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let lines = run.stdoutText.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first?.hasPrefix("relayfetch "), true, run.stdoutText)
        // A test build is a plain `swift build`: no commit was given it (scripts/test-package.sh
        // checks the release build names its commit).
        XCTAssertEqual(lines.first?.hasSuffix(" (commit unknown: not built by scripts/build-release.sh)"), true, run.stdoutText)
        let names = lines.dropFirst().map { $0.trimmingCharacters(in: .whitespaces).split(separator: " ").first.map(String.init) ?? "" }
        XCTAssertEqual(names, ["libcurl", "OpenSSL", "nghttp2", "ngtcp2", "nghttp3", "libxml2"], run.stdoutText)
        XCTAssertTrue(lines.dropFirst().allSatisfy { $0.split(separator: " ").count >= 2 }, "each with a version: \(run.stdoutText)")
    }
}
