import Foundation
import XCTest
@testable import OfflineCopy
@testable import HeadlessPage
import RelayFetch
import RelayFetchTestSupport

/// `--save DIR`: the copy opens offline, every reference of the page, its frames and style
/// sheets pointing at a saved file.
final class OfflineCopyTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testSavedCopyReferencesOnlyLocalFilesThatExist() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-save-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let session = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop()]))
        defer { session.invalidate() }
        var options = PageLoader.Options.complete
        options.keepBodies = true
        let page = try await PageLoader(session: session, options: options).load(URL(string: "https://origin.test/full/index.html")!)
        let index = try OfflineCopy.write(page, to: directory)
        XCTAssertEqual(index.path, directory.appendingPathComponent("origin.test/full/index.html").path)
        let saved = try FileManager.default.subpathsOfDirectory(atPath: directory.path).filter {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: directory.appendingPathComponent($0).path, isDirectory: &isDirectory)
            return !isDirectory.boolValue
        }
        XCTAssertEqual(saved.count, 39)

        for htmlFile in saved.filter({ $0.hasSuffix(".html") }).map({ directory.appendingPathComponent($0) }) {
            let document = try XCTUnwrap(HTMLDocument(data: Data(contentsOf: htmlFile), url: htmlFile))
            XCTAssertTrue(document.xpath("//base").isEmpty)
            for element in document.elements {
                let rel = element.attribute("rel") ?? ""
                guard element.name != "a", !rel.contains("canonical"), !rel.contains("alternate") else { continue }
                var references = ["src", "href", "poster", "data"].compactMap { element.attribute($0) }
                references += SubresourceScanner.srcsetURLs(element.attribute("srcset"))
                for reference in references where !reference.hasPrefix("data:") && !reference.hasPrefix("#") {
                    XCTAssertNil(URL(string: reference)?.scheme, "\(htmlFile.lastPathComponent): \(reference) is not local")
                    let path = String(reference.split(separator: "#").first ?? "")
                    let target = URL(fileURLWithPath: path, relativeTo: htmlFile.deletingLastPathComponent()).standardizedFileURL
                    XCTAssertTrue(FileManager.default.fileExists(atPath: target.path), "\(htmlFile.lastPathComponent): \(reference) is missing")
                }
            }
        }
        let css = directory.appendingPathComponent("origin.test/full/css/main.css")
        for reference in CSSURLScanner.references(in: try String(contentsOf: css, encoding: .utf8)) {
            let target = URL(fileURLWithPath: reference.url, relativeTo: css.deletingLastPathComponent()).standardizedFileURL
            XCTAssertTrue(FileManager.default.fileExists(atPath: target.path), "main.css: \(reference.url) is missing")
        }
        let entityImage = directory.appendingPathComponent("origin.test/full/img/entity_a_1_b_2.svg")
        XCTAssertTrue(FileManager.default.fileExists(atPath: entityImage.path), "queries are folded into file names")
    }
}
