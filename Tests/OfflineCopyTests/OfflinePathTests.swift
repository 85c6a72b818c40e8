import Foundation
import XCTest
@testable import OfflineCopy
import HeadlessPage

/// `OfflinePath`, the pure URL -> save-folder path mapping, over a corpus of hostile URLs
/// (Fixtures/hostile-paths.txt), and `SaveFolder` writing them into a sandbox.
final class OfflinePathTests: XCTestCase {
    static let base = URL(string: "https://origin.test:8443/traversal")!

    static func corpus() throws -> [URL] {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/hostile-paths.txt")
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map(String.init)
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        return lines.map { line in
            URL(string: line, relativeTo: base)?.absoluteURL
                ?? URL(string: line.addingPercentEncoding(withAllowedCharacters: .urlFragmentAllowed)!, relativeTo: base)!.absoluteURL
        }
    }

    func testEveryComponentOfEveryHostileURLIsSafe() throws {
        let urls = try Self.corpus() + [
            URL(string: "https://origin.test/")!, URL(string: "http://[::1]:8080/a/b?c=d")!,
            URL(string: "https://xn--bcher-kva.example/%2e%2e/..%2f")!, URL(string: "https://origin.test")!,
        ]
        XCTAssertGreaterThan(urls.count, 40, "the corpus was read")
        let root = URL(fileURLWithPath: "/sandbox/save")
        for url in urls {
            for isHTML in [false, true] {
                let components = OfflinePath.components(for: url, isHTML: isHTML)
                XCTAssertGreaterThanOrEqual(components.count, 2, "\(url)")
                XCTAssertLessThanOrEqual(components.count, OfflinePath.maximumDepth, "\(url)")
                for component in components {
                    XCTAssertTrue(OfflinePath.isSafe(component), "\(url) -> \(component)")
                    XCTAssertFalse(component.contains("/") || component.contains("\0") || component == ".." || component == ".")
                }
                let joined = root.appendingPathComponent(components.joined(separator: "/")).standardizedFileURL.path
                XCTAssertTrue(joined.hasPrefix(root.path + "/"), "\(url) -> \(joined)")
                XCTAssertEqual(components, OfflinePath.components(for: url, isHTML: isHTML), "deterministic")
            }
        }
    }

    func testOrdinaryURLsKeepReadableNames() {
        XCTAssertEqual(OfflinePath.components(for: URL(string: "https://origin.test/full/css/main.css")!, isHTML: false),
                       ["origin.test", "full", "css", "main.css"])
        XCTAssertEqual(OfflinePath.components(for: URL(string: "https://origin.test:8443/")!, isHTML: true),
                       ["origin.test_8443", "index.html"])
        XCTAssertEqual(OfflinePath.components(for: URL(string: "https://origin.test/img/entity.svg?a=1&b=2")!, isHTML: false).last?.hasSuffix(".svg"), true)
        XCTAssertEqual(OfflinePath.components(for: URL(string: "https://origin.test/page")!, isHTML: true).last, "page.html")
        // Encoded separators never split a name; encoded dot segments stay inside the URL's path.
        let encoded = OfflinePath.components(for: URL(string: "https://origin.test/x/..%2f..%2fetc%2fpasswd")!, isHTML: false)
        XCTAssertEqual(encoded.count, 3)
        XCTAssertEqual(OfflinePath.components(for: URL(string: "https://origin.test/i/%2e%2e/%2e%2e/a.png")!, isHTML: false),
                       ["origin.test", "a.png"])
    }

    func testDistinctHostileURLsGetDistinctFilesInsideTheSandbox() throws {
        let sandbox = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-paths-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: sandbox) }
        let save = sandbox.appendingPathComponent("save")
        let folder = try SaveFolder(save)
        var layout = OfflineLayout()
        var written = 0
        for url in try Self.corpus() {
            guard let path = layout.place(OfflinePath.components(for: url, isHTML: false), for: url) else { continue }
            try folder.write(Data("HOSTILE-BYTES".utf8), at: path)
            written += 1
        }
        XCTAssertGreaterThan(written, 35)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: sandbox.path), ["save"], "nothing beside the save folder")
        XCTAssertThrowsError(try folder.write(Data(), at: ["origin.test", ".."]), "unsafe components are refused")
        XCTAssertThrowsError(try folder.write(Data(), at: ["a/b"]))
    }
}

/// Rewriting a hostile style sheet for the offline copy stops at a bounded number of references.
final class OfflineCSSRewriteLimitTests: XCTestCase {
    func testRewriteStopsAtTheLimit() {
        let css = String(repeating: "a{background:url(x.png)}", count: 300)
        var seen = 0
        _ = CSSURLScanner.rewrite(css, limit: 100) { _ in
            seen += 1
            return nil
        }
        XCTAssertEqual(seen, 100)
    }
}
