import Foundation
import XCTest
@testable import Crawler

/// Sitemaps and sitemap indexes, plain and gzip; gzip bombs and corrupt data refused.
final class SitemapTests: XCTestCase {
    let base = URL(string: "https://example.com/sitemap.xml")!

    func gzip(_ text: String) throws -> Data {
        let result = try Process.run(URL(fileURLWithPath: "/bin/gzip"), arguments: ["-c"], input: Data(text.utf8))
        return result
    }

    func testURLSetAndIndexPlainAndGzip() throws {
        let urlset = """
            <?xml version="1.0" encoding="UTF-8"?>
            <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
              <url><loc> https://example.com/a </loc><lastmod>2026-01-01</lastmod></url>
              <url><loc>https://example.com/b?x=1&amp;y=2</loc></url>
            </urlset>
            """
        let expected = ["https://example.com/a", "https://example.com/b?x=1&y=2"]
        XCTAssertEqual(LinkExtractor.sitemapLocations(in: Data(urlset.utf8), url: base), expected)
        XCTAssertEqual(LinkExtractor.sitemapLocations(in: try gzip(urlset), url: base), expected)
        let index = "<sitemapindex><sitemap><loc>https://example.com/s1.xml.gz</loc></sitemap></sitemapindex>"
        XCTAssertEqual(LinkExtractor.sitemapLocations(in: Data(index.utf8), url: base), ["https://example.com/s1.xml.gz"])
        XCTAssertNil(LinkExtractor.sitemapLocations(in: Data("<html><body>no</body></html>".utf8), url: base))
    }

    func testGunzipRefusesBombsAndCorruptData() throws {
        let bomb = try gzip(String(repeating: "a", count: 2 << 20))
        XCTAssertLessThan(bomb.count, 20_000)
        XCTAssertEqual(Gunzip.inflate(bomb)?.count, 2 << 20)
        XCTAssertNil(Gunzip.inflate(bomb, limit: 1 << 20), "inflating past the limit stops")
        XCTAssertNil(Gunzip.inflate(bomb.prefix(bomb.count / 2)), "truncated")
        XCTAssertNil(Gunzip.inflate(Data([0x1F, 0x8B, 0, 0, 0])), "corrupt")
    }
}

private extension Process {
    /// Runs `executable` with `input` on stdin; returns its stdout.
    static func run(_ executable: URL, arguments: [String], input: Data) throws -> Data {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        DispatchQueue.global().async {
            stdin.fileHandleForWriting.write(input)
            try? stdin.fileHandleForWriting.close()
        }
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return output
    }
}
