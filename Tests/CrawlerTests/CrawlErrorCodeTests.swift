import Foundation
import XCTest
@testable import Crawler

/// `CrawlError.Code` is an open set, as `FetchError.Code` is: an output that fails says `.output`
/// (compared with `==`, matched with a `default:`), as `isOutputFailure` did.
final class CrawlErrorCodeTests: XCTestCase {
    func testAFullDiskIsAnOutputFailureByCode() throws {
        let output = try CrawlOutput(jsonLinesPath: "/dev/full", warcDirectory: nil)
        let record = CrawlRecord(url: "https://example.com/", depth: 0, outcome: .fetched, fetchedAt: Date())
        XCTAssertThrowsError(try output.write(CrawledPage(record: record))) { error in
            let error = error as? CrawlError
            XCTAssertEqual(error?.code, .output)
            XCTAssertEqual(error?.isOutputFailure, true)
            switch error?.code {
            case .store?, .seeds?: XCTFail("not an output failure")
            default: break
            }
        }
        XCTAssertEqual(CrawlError.Code.store.description, "store")
        XCTAssertNotEqual(CrawlError.Code.scope, .relays)
    }
}
