import Foundation
import XCTest
import RelayFetchTestSupport

/// SOCKS5 hops under strace: the process dials only its first hop and resolves no name, with the
/// SOCKS server first or behind an HTTP/2 relay; the SOCKS server's log shows it was given the
/// origin's name, and the origin's log that the SOCKS server connected.
extension ProcessLevelPrivacyTests {
    /// With credentials in the URL (RFC 1929), which -v leaves out of the route it shows.
    func testSOCKS5FirstHopIsTheOnlyDialAndNothingIsResolved() throws {
        let socks = try SOCKSServer(username: "alice", password: "s3cret")
        let marker = TestServers.marker("strace-socks1")
        let (status, output, trace) = try traced(["get", "https://origin.test/index.html?\(marker)", "-o", "/dev/null", "-v", "--cacert", TestServers.caFile,
                                                  "--relay", socks.url(username: "alice", password: "s3cret").absoluteString])
        XCTAssertEqual(status, 0, output)
        XCTAssertTrue(output.contains("* route: socks5://\(SOCKSServer.address):\(socks.port) -> origin.test"), output)
        XCTAssertTrue(output.contains("* hop 1 (\(SOCKSServer.address):\(socks.port), SOCKS5): tunnel open after"), output)
        XCTAssertFalse(output.contains("s3cret"), output)
        assertDialledOnly([.init(kind: .tcp, address: "\(SOCKSServer.address):\(socks.port)")], in: trace)
        XCTAssertEqual(try socks.waitForConnections(1).map(\.target), ["origin.test:443"])
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first?.first, SOCKSServer.address)
    }

    func testSOCKS5SecondHopBehindAnHTTP2RelayDialsOnlyTheRelay() throws {
        let socks = try SOCKSServer()
        let marker = TestServers.marker("strace-socks2")
        let (status, output, trace) = try traced(["get", "https://origin.test/index.html?\(marker)", "-o", "/dev/null", "--cacert", TestServers.caFile,
                                                  "--relay", TestServers.http2RelayAURL.absoluteString, "--relay-protocol", "h2",
                                                  "--relay-header", "Proxy-Authorization: \(TestServers.relayToken)", "--relay-cacert", TestServers.caFile,
                                                  "--relay", socks.url().absoluteString])
        XCTAssertEqual(status, 0, output)
        assertDialledOnly([.init(kind: .tcp, address: "127.0.0.11:4433")], in: trace)
        let connections = try socks.waitForConnections(1)
        XCTAssertEqual(connections.map(\.target), ["origin.test:443"])
        XCTAssertEqual(connections.map(\.client), ["127.0.0.11"])
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first?.first, SOCKSServer.address)
    }
}
