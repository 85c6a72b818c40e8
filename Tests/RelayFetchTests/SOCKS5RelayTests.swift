import Foundation
import XCTest
import RelayFetch
import RelayFetchTestSupport

/// SOCKS5 hops (RFC 1928/1929) against a real SOCKS server (microsocks, `SOCKSServer`): as the
/// first hop and as the second behind an HTTP/2 relay (nghttpx A). The SOCKS server's own log
/// tells which name it was asked for and who asked; the origin's log, who connected to it.
final class SOCKS5RelayTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    private func socksHop(_ url: URL) -> ProxyConfiguration.RelayHop { ProxyConfiguration.RelayHop(http2RelayEndpoint: url) }

    /// The error of a fetch that must fail; fails the test if it loads.
    private func failure(of url: String, in session: Session, file: StaticString = #filePath, line: UInt = #line) async -> FetchError.RelayFailure? {
        do {
            _ = try await session.data(from: URL(string: url)!)
            XCTFail("\(url) must not load", file: file, line: line)
        } catch let error as FetchError {
            return error.relayError
        } catch {
            XCTFail("\(error)", file: file, line: line)
        }
        return nil
    }

    func testFirstHopSendsTheTargetNameAndTheOriginSeesTheSOCKSServer() async throws {
        let socks = try SOCKSServer()
        let marker = TestServers.marker("socks-hop1")
        let session = try Session(configuration: TestServers.configuration(hops: [socksHop(socks.url())]))
        defer { session.invalidate() }
        let (_, response) = try await session.data(from: URL(string: "https://origin.test/index.html?\(marker)")!)
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(response.relayHops, ["\(SOCKSServer.address):\(socks.port)"])
        XCTAssertEqual(response.relayHopTimings.map(\.protocolName), ["SOCKS5"])
        let origin = try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0)
        XCTAssertEqual(origin.first?[OriginLogField.remoteAddress.rawValue], SOCKSServer.address, "the origin's peer is the SOCKS server")
        let connections = try socks.waitForConnections(1)
        XCTAssertEqual(connections.map(\.target), ["origin.test:443"], "the SOCKS server was given the name, not an address")
        XCTAssertEqual(connections.map(\.client), ["127.0.0.1"])
    }

    /// nghttpx A tunnels to the SOCKS server, which connects to the origin: A sees the SOCKS
    /// server's address only, the SOCKS server sees A (its squid backend, 127.0.0.11) and the
    /// origin's name, the origin sees the SOCKS server.
    func testSecondHopBehindAnHTTP2Relay() async throws {
        let socks = try SOCKSServer()
        let marker = TestServers.marker("socks-hop2")
        let authority = "\(SOCKSServer.address):\(socks.port)"
        let before = try TestServers.allLogLines(TestServers.http2RelayALog).count
        let hopA = TestServers.relayHop(url: TestServers.http2RelayAURL, relayProtocol: .http2)
        let session = try Session(configuration: TestServers.configuration(hops: [hopA, socksHop(socks.url())]))
        let (_, response) = try await session.data(from: URL(string: "https://origin.test/index.html?\(marker)")!)
        session.invalidate()
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(response.relayHopTimings.map(\.protocolName), ["HTTPS, HTTP/2 CONNECT", "SOCKS5"])
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first?[OriginLogField.remoteAddress.rawValue],
                       SOCKSServer.address)
        let connections = try socks.waitForConnections(1)
        XCTAssertEqual(connections.map(\.target), ["origin.test:443"])
        XCTAssertEqual(connections.map(\.client), ["127.0.0.11"], "the SOCKS server's client is relay A, not us")
        let linesA = try TestServers.waitForLogLines(TestServers.http2RelayALog, containing: authority, skipping: 0)
        XCTAssertEqual(linesA.values(HTTP2RelayLogField.path), [authority], "A was asked for the SOCKS server")
        for line in try TestServers.allLogLines(TestServers.http2RelayALog).dropFirst(before) {
            XCTAssertFalse(line.joined(separator: "\t").contains("origin.test"), "A saw the origin's name: \(line)")
        }
    }

    /// Username and password (RFC 1929) from the relay URL: accepted when right; wrong ones, or
    /// none, are typed errors naming the hop, and the origin sees nothing.
    func testCredentialsFromTheURL() async throws {
        let socks = try SOCKSServer(username: "alice", password: "s3cret")
        let marker = TestServers.marker("socks-auth")
        for (url, expected) in [(socks.url(username: "alice", password: "wrong"), "the SOCKS5 server rejected the username and password"),
                                (socks.url(), "the SOCKS5 server accepts none of the authentication methods offered (no authentication)")] {
            let session = try Session(configuration: TestServers.configuration(hops: [socksHop(url)]))
            defer { session.invalidate() }
            let error = await failure(of: "https://\(TestServers.originAAddress)/index.html?\(marker)", in: session)
            XCTAssertEqual(error?.hop.index, 1)
            XCTAssertEqual(error?.hop.protocolName, "SOCKS5")
            XCTAssertTrue(error?.description.hasPrefix("hop 1 (\(SOCKSServer.address):\(socks.port), SOCKS5): \(expected)") == true, "\(String(describing: error))")
        }
        let session = try Session(configuration: TestServers.configuration(hops: [socksHop(socks.url(username: "alice", password: "s3cret"))]))
        defer { session.invalidate() }
        let (_, response) = try await session.data(from: URL(string: "https://origin.test/index.html?\(marker)-right")!)
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(try socks.waitForConnections(1).map(\.target), ["origin.test:443"], "only the authenticated CONNECT went through")
        try await TestServers.proveDirectlyReachable(TestServers.originAAddress)
        let lines = try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0)
        XCTAssertEqual(lines.count, 1, "only the authenticated request reached the origin: \(lines)")
        XCTAssertEqual(lines.first?[OriginLogField.remoteAddress.rawValue], SOCKSServer.address)
    }

    /// Invariant 1 for SOCKS: with the SOCKS server down, nothing goes direct, even to the
    /// origins' IP literals, which a direct connection reaches (proven after).
    func testSOCKSServerDownFailsClosed() async throws {
        let down = URL(string: "socks5://\(SOCKSServer.address):\(try SOCKSServer.freePort())")!
        let marker = TestServers.marker("socks-down")
        var proxy = ProxyConfiguration(relayHops: [socksHop(down)])
        proxy.allowFailover = true  // even asking for failover must not open a direct path
        var configuration = TestServers.configuration(hops: [])
        configuration.proxyConfigurations = [proxy]
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        for host in ["origin.test", TestServers.originAAddress, TestServers.originBAddress] {
            let error = await failure(of: "https://\(host)/index.html?\(marker)", in: session)
            XCTAssertEqual(error?.hop.index, 1)
            XCTAssertEqual(error?.hop.protocolName, "SOCKS5")
            XCTAssertEqual(error?.cause, .connectionRefused)
        }
        try await TestServers.proveDirectlyReachable(TestServers.originAAddress)
        try await TestServers.proveDirectlyReachable(TestServers.originBAddress)
        XCTAssertEqual(try TestServers.logLines(TestServers.originALog, containing: marker).count, 0, "origin A was reached")
        XCTAssertEqual(try TestServers.logLines(TestServers.originBLog, containing: marker).count, 0, "origin B was reached")
    }

    /// The real server's failure replies: a refused target names the SOCKS hop with reply 5; a
    /// relay behind it that cannot be reached is named itself, as hop 2.
    func testFailureRepliesNameTheRightHop() async throws {
        let socks = try SOCKSServer()
        let refused = try Session(configuration: TestServers.configuration(hops: [socksHop(socks.url())]))
        defer { refused.invalidate() }
        let error = await failure(of: "https://\(TestServers.originAAddress):\(try SOCKSServer.freePort(on: TestServers.originAAddress))/", in: refused)
        XCTAssertEqual(error?.hop.index, 1)
        XCTAssertEqual(error?.cause.socksReply, 5)
        XCTAssertTrue(error?.description.hasSuffix("SOCKS5): the SOCKS5 server refused the connection: reply 5 (connection refused)") == true,
                      "\(String(describing: error))")

        let deadRelay = TestServers.relayHop(url: TestServers.deadRelayURL, relayProtocol: .http2)
        let chained = try Session(configuration: TestServers.configuration(hops: [socksHop(socks.url()), deadRelay]))
        defer { chained.invalidate() }
        let behind = await failure(of: "https://origin.test/", in: chained)
        XCTAssertEqual(behind?.hop.index, 2)
        XCTAssertEqual(behind?.description, "hop 2 (127.0.0.13:3129, HTTPS): unreachable: hop 1 answered 5 connection refused when connecting to it")
    }

    /// Placement: QUIC needs datagrams, which a SOCKS5 tunnel cannot carry. An `auto` relay after
    /// a SOCKS hop goes straight to TCP (its CONNECT through the SOCKS server, which is given the
    /// relay's address); an HTTP/3-only one is refused before anything is dialled.
    func testARelayAfterASOCKSHopIsReachedOverTCPAndHTTP3OnlyIsRefused() async throws {
        let socks = try SOCKSServer()
        let marker = TestServers.marker("socks-then-relay")
        let session = try Session(configuration: TestServers.configuration(hops: [socksHop(socks.url()), TestServers.relayHop(url: TestServers.http2RelayAURL)]))
        defer { session.invalidate() }
        let (_, response) = try await session.data(from: URL(string: "https://origin.test/index.html?\(marker)")!)
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(response.relayHopTimings.map(\.protocolName), ["SOCKS5", "HTTPS, HTTP/2 CONNECT"])
        XCTAssertEqual(try socks.waitForConnections(1).map(\.target), ["127.0.0.11:4433"], "the SOCKS server was asked for relay A only")
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first?[OriginLogField.remoteAddress.rawValue], "127.0.0.11")

        let quicOnly = TestServers.relayHop(url: TestServers.http2RelayAURL, relayProtocol: .http3)
        let refused = try Session(configuration: TestServers.configuration(hops: [socksHop(socks.url()), quicOnly]))
        defer { refused.invalidate() }
        let error = await failure(of: "https://origin.test/index.html?\(marker)-h3", in: refused)
        XCTAssertEqual(error?.hop.index, 2)
        XCTAssertEqual(error?.hop.protocolName, "QUIC, HTTP/3 CONNECT")
        XCTAssertTrue(error?.description.contains("CONNECT-UDP") == true, "\(String(describing: error))")
        XCTAssertEqual(try socks.connections().count, 1, "nothing more was asked of the SOCKS server")
    }

    /// An idle timeout behind a SOCKS hop: the HTTP/2 hop answers its PING, the SOCKS hop cannot
    /// be probed, and the diagnosis says so.
    func testStallBehindASOCKSHopSaysItCannotBeProbed() async throws {
        let origin = try HostileServer(script: "origin.py")
        defer { origin.stop() }
        let socks = try SOCKSServer()
        var configuration = TestServers.configuration(hops: [TestServers.relayHop(url: TestServers.http2RelayAURL, relayProtocol: .http2), socksHop(socks.url())])
        configuration.idleTimeout = 1
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        let failure = await session.fetchError(URL(string: "https://origin.test:\(origin.port)/unlength-stall/100")!)
        let error = try XCTUnwrap(failure, "a stalled response completed")
        XCTAssertTrue(error.description.contains("the origin or hop 2 stalled (only HTTP/2 hops can be probed)"), "\(error)")
        XCTAssertEqual(try socks.waitForConnections(1).map(\.target), ["origin.test:\(origin.port)"])
        XCTAssertEqual(try origin.events().filter { $0.contains("/unlength-stall/") }.count, 1)
    }

    /// A SOCKS5 hop has no header fields and no TLS: a configuration that gives it either is
    /// refused before anything is sent, naming the hop.
    func testHeaderFieldsAndTLSOptionsOnASOCKSHopAreRefused() async throws {
        let socks = try SOCKSServer()
        var withTLS = socksHop(socks.url())
        withTLS.tlsOptions = .init(certificateAuthorityFile: TestServers.caFile)
        let withHeader = ProxyConfiguration.RelayHop(http2RelayEndpoint: socks.url(), additionalHTTPHeaderFields: ["Proxy-Authorization": "x"])
        for (hop, why) in [(withHeader, "has no header fields"), (withTLS, "has no TLS")] {
            let session = try Session(configuration: TestServers.configuration(hops: [hop]))
            defer { session.invalidate() }
            do {
                _ = try await session.data(from: URL(string: "https://origin.test/")!)
                XCTFail("a SOCKS5 hop that \(why) was used")
            } catch {
                XCTAssertTrue("\(error)".contains("relay 1: a SOCKS5 relay \(why)"), "\(error)")
            }
        }
        XCTAssertEqual(try socks.connections().count, 0, "nothing was sent to the SOCKS server")
    }
}
