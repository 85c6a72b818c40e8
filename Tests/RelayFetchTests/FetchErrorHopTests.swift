import Foundation
import XCTest
import RelayFetch
import RelayFetchTestSupport

/// A failure names its hop with the transport's own type: `FetchError.Hop` is `HopDescription`
/// (re-exported), not a twin copied field by field.
final class FetchErrorHopTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testARefusedHopIsNamedByTheTransportsHopDescription() async throws {
        XCTAssertTrue(FetchError.Hop.self == HopDescription.self)
        // Nothing listens on 127.0.25.9:9 (this helper's loopback range): the relay refuses.
        let hop = TestServers.relayHop(url: URL(string: "https://127.0.25.9:9")!)
        var configuration = TestServers.configuration(hops: [hop])
        configuration.connectTimeout = 3
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        do {
            _ = try await session.data(from: URL(string: "https://origin.test/index.html")!)
            XCTFail("the relay is down")
        } catch let error as FetchError {
            let named: HopDescription? = error.relayError?.hop
            XCTAssertEqual(named?.index, 1)
            XCTAssertEqual(named?.endpoint, "127.0.25.9:9")
            XCTAssertEqual(named.map { "\($0)" }, "hop 1 (127.0.25.9:9, \(named?.protocolName ?? ""))")
            XCTAssertEqual(Set([named, error.relayError?.hop]).count, 1, "hashable: one hop")
        }
    }
}
