import Foundation
import XCTest
import RelayFetch
import RelayFetchTestSupport

/// A hostile origin (origin.py, plain HTTP on 127.0.0.160, reached through relay A) redirecting
/// to a port beyond 65535, which Foundation's `URL` accepts: the relayed route made a `UInt16` of
/// it and trapped, ending the process. The redirect now fails as an invalid URL, before any
/// tunnel is asked for.
final class OutOfRangePortTests: XCTestCase {
    func testRedirectToAPortBeyond65535FailsAsAnInvalidURL() async throws {
        let origin = try HostileServer(script: "origin.py", host: "127.0.0.160", arguments: ["--plain"])
        defer { origin.stop() }
        let session = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop()]))
        defer { session.invalidate() }
        let targets = ["http://127.0.0.160:65536/x", "https://origin.test:99999/x", "http://127.0.0.160:4294967296/x"]
        for target in targets {
            let error = await session.fetchError(URL(string: "http://127.0.0.160:\(origin.port)/redirect?to=\(target)")!)
            XCTAssertEqual(error?.description, "invalid URL \"\(target)\"", target)
        }
        // Each redirect came from the origin; none of their targets was asked of the relay.
        XCTAssertEqual(try origin.events().filter { $0.hasPrefix("REQUEST\tGET\t/redirect?to=") }.count, targets.count)
    }
}
