import Foundation
import XCTest
import RelayFetchTestSupport

/// The system-call checks with HTTP/3 to the origin (`--origin-protocol h3`): the client's QUIC
/// to the origin runs inside CONNECT-UDP, so the only packets leave for the first relay, and the
/// origin's name, which only the last relay can resolve, is never looked up here; nothing is
/// written to disk.
extension ProcessLevelPrivacyTests {
    func testHTTP3OriginThroughTwoHTTP3RelaysSendsOnlyToTheFirstAndResolvesNothing() throws {
        let origin = try CaddyOrigin(host: "127.0.5.5")
        let relay = try HTTP3RelayInstance(host: "127.0.5.6", hosts: [origin.name: origin.host])
        let marker = TestServers.marker("strace-h3origin")
        let hops = ["--relay", "https://127.0.0.11:4433", "--relay-protocol", "h3", "--relay-header", "Proxy-Authorization: \(TestServers.relayToken)",
                    "--relay-cacert", TestServers.caFile,
                    "--relay", "https://\(relay.host):\(relay.port)", "--relay-protocol", "h3", "--relay-header", "Proxy-Authorization: \(TestServers.relayBToken)",
                    "--relay-cacert", TestServers.caFile]
        let (status, output, trace) = try traced(["get", "https://\(origin.name):\(origin.port)/about.html?\(marker)", "-o", "/dev/null",
                                                  "--cacert", TestServers.caFile, "--origin-protocol", "h3"] + hops)
        XCTAssertEqual(status, 0, output)
        assertDialledOnly([.init(kind: .udp, address: "127.0.0.11:4433")], in: trace)
        XCTAssertEqual(trace.fileWrites.filter { !$0.contains("\"/dev/null\"") }, [], "the fetch touched the disk")
        let logged = try origin.requests(containing: marker, expected: 1)
        XCTAssertEqual(logged.map(\.proto), ["HTTP/3.0"])
        XCTAssertEqual(logged.map(\.remoteIP), [relay.host], "the origin saw the last relay")
    }
}
