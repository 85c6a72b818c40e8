import Foundation
import XCTest
import RelayFetch
import RelayFetchTestSupport

/// `RelayHop(http3RelayEndpoint:http2RelayEndpoint:)`: HTTP/3 first, the HTTP/2 endpoint when QUIC
/// cannot connect, remembered per session; never a direct connection.
final class HTTP3FallbackTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    private func hop(http3: String, http2: String) -> ProxyConfiguration.RelayHop {
        ProxyConfiguration.RelayHop(http3RelayEndpoint: URL(string: http3)!, http2RelayEndpoint: URL(string: http2)!,
                                    tlsOptions: .init(certificateAuthorityFile: TestServers.caFile),
                                    additionalHTTPHeaderFields: ["Proxy-Authorization": TestServers.relayToken])
    }

    func testHTTP3IsPreferredWhenItAnswers() async throws {
        let linesBefore = try TestServers.allLogLines(TestServers.http3RelayALog).count
        let session = try Session(configuration: TestServers.configuration(hops: [hop(http3: "https://127.0.0.11:4433", http2: "https://127.0.0.11:4433")]))
        defer { session.invalidate() }
        let reports = ReportCollector()
        session.onTunnelOpen { reports.add($0) }
        _ = try await session.data(from: URL(string: "https://origin.test/index.html")!)
        // The kernel: a UDP socket to the relay and no TCP connection; the HTTP/3 relay's log: the
        // tunnel came over that socket.
        let quic = try TestServers.ownSockets(.udp, to: "127.0.0.11:4433")
        XCTAssertEqual(quic.count, 1)
        XCTAssertEqual(try TestServers.ownSockets(.tcp, to: "127.0.0.11:4433"), [], "nothing went to the HTTP/2 endpoint")
        let tunnels = try TestServers.http3RelayLines(TestServers.http3RelayALog, skipping: linesBefore, from: quic)
        XCTAssertEqual(tunnels.values(HTTP3RelayLogField.authority), ["origin.test:443"], "the HTTP/3 relay's log")
        XCTAssertEqual(tunnels.values(HTTP3RelayLogField.status), ["200"])
        XCTAssertEqual(reports.all.first?.protocolName, "QUIC, HTTP/3 CONNECT", "and the client reports what the relay logged")
    }

    func testSilentQUICEndpointFallsBackToHTTP2AndTheSessionRemembers() async throws {
        let silent = try SilentSocket(.udp, host: "127.0.0.14")
        defer { silent.close() }
        var configuration = TestServers.configuration(hops: [hop(http3: "https://127.0.0.14:\(silent.port)", http2: "https://127.0.0.11:4433")])
        configuration.http3FallbackDelay = 0.6
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        let reports = ReportCollector()
        session.onTunnelOpen { reports.add($0) }

        let firstStarted = Date()
        _ = try await session.data(from: URL(string: "https://origin.test/index.html")!)
        XCTAssertGreaterThan(Date().timeIntervalSince(firstStarted), 0.55, "QUIC was tried first")
        XCTAssertEqual(reports.all.last?.description.hasPrefix("hop 1 (127.0.0.11:4433, HTTPS, HTTP/2 CONNECT)"), true,
                       "\(reports.all)")
        let tunnel = "\tCONNECT\torigin2.test:443\t"
        let tunnelsBefore = try TestServers.logLines(TestServers.http2RelayALog, containing: tunnel).count
        let secondStarted = Date()
        _ = try await session.data(from: URL(string: "https://origin2.test/index.html")!)  // a new tunnel
        XCTAssertLessThan(Date().timeIntervalSince(secondStarted), 0.5, "the session remembers QUIC did not answer")
        XCTAssertEqual(reports.all.count, 2)
        // The HTTP/2 relay's log: the second tunnel came over HTTP/2 (nghttpx logs ALPN h2).
        let tunnels = try TestServers.waitForLogLines(TestServers.http2RelayALog, containing: tunnel, skipping: tunnelsBefore)
        XCTAssertEqual(tunnels.values(HTTP2RelayLogField.alpn), ["h2"], "\(tunnels)")
        XCTAssertEqual(try TestServers.ownSockets(.tcp, to: "127.0.0.11:4433").count, 1, "the kernel: one connection to the HTTP/2 endpoint")
    }

    func testBothEndpointsDownFailsClosed() async throws {
        let marker = TestServers.marker("h3down")
        var configuration = TestServers.configuration(hops: [hop(http3: "https://127.0.0.13:4433", http2: "https://127.0.0.13:4499")])
        configuration.http3FallbackDelay = 0.5
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        for host in ["origin.test", TestServers.originAAddress] {
            do {
                _ = try await session.data(from: URL(string: "https://\(host)/index.html?\(marker)")!)
                XCTFail("both endpoints are down, yet \(host) loaded")
            } catch let error as FetchError {
                XCTAssertEqual(error.relayError?.hop.index, 1)
                XCTAssertEqual(error.relayError?.cause, .connectionRefused, error.description)
                XCTAssertTrue(error.description.hasPrefix("hop 1 (127.0.0.13:4499, HTTPS"), error.description)
            }
        }
        try await TestServers.proveDirectlyReachable(TestServers.originAAddress)
        XCTAssertEqual(try TestServers.logLines(TestServers.originALog, containing: marker).count, 0, "origin A was reached")
    }

    func testARefusingHTTP3RelayDoesNotFallBack() async throws {
        var noToken = hop(http3: "https://127.0.0.11:4433", http2: "https://127.0.0.11:4433")
        noToken.additionalHTTPHeaderFields = [:]
        let session = try Session(configuration: TestServers.configuration(hops: [noToken]))
        defer { session.invalidate() }
        do {
            _ = try await session.data(from: URL(string: "https://origin.test/index.html")!)
            XCTFail("the relay wants its token")
        } catch let error as FetchError {
            XCTAssertTrue(error.description.hasPrefix("hop 1 (127.0.0.11:4433, QUIC, HTTP/3 CONNECT): relay refused the tunnel: 407"), error.description)
        }
    }
}
