import Foundation
import XCTest
import RelayFetch
import RelayTransport
import RelayFetchTestSupport

/// The automatic protocol on an https relay: QUIC first, TCP raced after a head start (Happy
/// Eyeballs), the winner remembered per session. Relay A serves HTTP/3 (aioquic, UDP) and HTTP/2
/// (nghttpx, TCP) on the same port, 127.0.0.11:4433.
final class HTTP3FirstTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testAutomaticProtocolSpeaksHTTP3ToARelayServingBoth() async throws {
        let linesBefore = try TestServers.allLogLines(TestServers.http3RelayALog).count
        let earlierTCP = Set(try TestServers.ownSockets(.tcp, to: "127.0.0.11:4433"))
        let session = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop(url: TestServers.http2RelayAURL)]))
        defer { session.invalidate() }
        let reports = ReportCollector()
        session.onTunnelOpen { reports.add($0) }
        _ = try await session.data(from: URL(string: "https://origin.test/index.html")!)
        _ = try await session.data(from: URL(string: "https://origin2.test/index.html")!)
        // The kernel: one UDP socket to the relay, no TCP connection; the HTTP/3 relay's log:
        // both tunnels came over that socket.
        let quic = try TestServers.ownSockets(.udp, to: "127.0.0.11:4433")
        XCTAssertEqual(quic.count, 1)
        XCTAssertEqual(Set(try TestServers.ownSockets(.tcp, to: "127.0.0.11:4433")).subtracting(earlierTCP), [], "nothing went over TCP")
        let tunnels = try TestServers.http3RelayLines(TestServers.http3RelayALog, skipping: linesBefore, from: quic)
        XCTAssertEqual(tunnels.values(HTTP3RelayLogField.authority), ["origin.test:443", "origin2.test:443"], "the HTTP/3 relay's log")
        XCTAssertEqual(reports.all.map(\.protocolName), ["QUIC, HTTP/3 CONNECT", "QUIC, HTTP/3 CONNECT"])
        let opened = await session.relayConnectionsOpened()
        XCTAssertEqual(opened, [1: 1], "one QUIC connection carried both tunnels")
    }

    func testWhenUDPIsDroppedHTTP2WinsAfterTheHeadStartAndTheSessionRemembers() async throws {
        // A front on relay A's address that forwards TCP to nghttpx and drops every datagram.
        let front = try HostileServer(script: "udp_dropping_front.py", host: "127.0.0.11")
        defer { front.stop() }
        let origin = try HostileServer(script: "redirecting_origin.py")
        defer { origin.stop() }
        // The port is the kernel's choice: an earlier test's server may have had it, so only
        // nghttpx's lines from now on count (a whole run once read two tunnels here).
        let authority = "origin.test:\(origin.port)"
        let earlierTunnels = try TestServers.logLines(TestServers.http2RelayALog, containing: "\tCONNECT\t\(authority)\t").count
        var configuration = TestServers.configuration(hops: [TestServers.relayHop(url: URL(string: "https://127.0.0.11:\(front.port)")!)])
        configuration.http3FallbackDelay = 1  // wide margins on a busy machine
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        let reports = ReportCollector()
        session.onTunnelOpen { reports.add($0) }

        let started = Date()
        _ = try await session.data(from: URL(string: "https://\(authority)/page.html")!)
        XCTAssertGreaterThan(Date().timeIntervalSince(started), 1, "QUIC had its head start")
        XCTAssertEqual(reports.all.first?.protocolName, "HTTPS, HTTP/2 CONNECT")
        let dropped = try front.events().filter { $0.hasPrefix("DROPPED") }.count
        XCTAssertGreaterThan(dropped, 0, "QUIC was tried first: the front dropped its packets")
        let tunnels = try TestServers.waitForLogLines(TestServers.http2RelayALog, containing: "\tCONNECT\t\(authority)\t", skipping: earlierTunnels)
        XCTAssertEqual(tunnels.values(HTTP2RelayLogField.alpn), ["h2"], "nghttpx's log: the tunnel came over HTTP/2")

        let again = Date()
        _ = try await session.data(from: URL(string: "https://origin2.test/index.html")!)  // a new tunnel
        XCTAssertLessThan(Date().timeIntervalSince(again), 0.9, "the session remembers that TCP won")
        XCTAssertEqual(reports.all.map(\.protocolName), ["HTTPS, HTTP/2 CONNECT", "HTTPS, HTTP/2 CONNECT"])
        XCTAssertEqual(try front.events().filter { $0.hasPrefix("DROPPED") }.count, dropped, "no QUIC packet for the second tunnel")
        XCTAssertEqual(try front.events().filter { $0 == "CONNECTION" }.count, 1, "both tunnels on one HTTP/2 connection")
    }

    func testAnHTTPSRecordWithoutH3SendsNoQUIC() async throws {
        // The same UDP-dropping front, under a name whose HTTPS record lists only h2 (relay A's
        // certificate does not name it: the hop trusts the relay's key).
        let dns = try EncryptedDNSServer.shared()
        let front = try HostileServer(script: "udp_dropping_front.py", host: "127.0.0.11")
        defer { front.stop() }
        var hop = TestServers.relayHop(url: URL(string: "https://h2only.test:\(front.port)")!, trustTestCA: false)
        hop.tlsOptions.pinnedPublicKeySHA256 = [try TestServers.relayPublicKeySHA256()]
        var configuration = TestServers.configuration(hops: [hop])
        configuration.http3FallbackDelay = 2
        let privacy = PrivacyContext()
        privacy.requireEncryptedNameResolution(true, fallbackResolver: .https(EncryptedDNSServer.dohURL, serverAddresses: [EncryptedDNSServer.address]))
        configuration.privacyContext = privacy
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        let reports = ReportCollector()
        session.onTunnelOpen { reports.add($0) }
        let before = try dns.questions().count
        let started = Date()
        _ = try await session.data(from: URL(string: "https://origin.test/index.html")!)
        XCTAssertLessThan(Date().timeIntervalSince(started), 1.5, "no QUIC head start was waited for")
        XCTAssertEqual(reports.all.first?.protocolName, "HTTPS, HTTP/2 CONNECT")
        XCTAssertEqual(try front.events().filter { $0.hasPrefix("DROPPED") }, [], "not one QUIC packet")
        XCTAssertTrue(try dns.questions(after: before, atLeast: 3).contains { $0[DNSQuestionField.name.rawValue] == "h2only.test" && $0[DNSQuestionField.type.rawValue] == "HTTPS" })
    }

    func testAltSvcFromATCPRelayIsRememberedForTheSession() async throws {
        // A TCP-only front of relay A whose CONNECT answers say Alt-Svc: h3=":4433" (relay A's HTTP/3 port).
        let front = try HostileServer(script: "alt_svc_front.py", host: "127.0.0.11")
        defer { front.stop() }
        let linesBefore = try TestServers.allLogLines(TestServers.http3RelayALog).count
        let session = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop(url: URL(string: "https://127.0.0.11:\(front.port)")!)]))
        defer { session.invalidate() }
        let reports = ReportCollector()
        session.onTunnelOpen { reports.add($0) }
        _ = try await session.data(from: URL(string: "https://origin.test/index.html")!)
        _ = try await session.data(from: URL(string: "https://origin2.test/index.html")!)  // a new tunnel
        XCTAssertEqual(reports.all.count, 2)
        XCTAssertEqual(reports.all.first?.protocolName, "HTTPS, HTTP/1.1 CONNECT", "the first tunnel: the front, over TCP")
        XCTAssertEqual(reports.all.last?.hop, "127.0.0.11:4433")
        XCTAssertEqual(reports.all.last?.protocolName, "QUIC, HTTP/3 CONNECT", "the second: the advertised HTTP/3 endpoint")
        XCTAssertEqual(try front.events().filter { $0.hasPrefix("CONNECT") }, ["CONNECT\torigin.test:443"])
        let quic = try TestServers.ownSockets(.udp, to: "127.0.0.11:4433")
        let tunnels = try TestServers.http3RelayLines(TestServers.http3RelayALog, skipping: linesBefore, from: quic)
        XCTAssertEqual(tunnels.values(HTTP3RelayLogField.authority), ["origin2.test:443"], "the HTTP/3 relay's log")
    }

    func testAnHTTPSRecordsPortIsWhereQUICIsTried() async throws {
        // split.test is relay A: squid (TCP only) on the URL's port 3129, and an HTTPS record
        // saying h3 is on port 4433 (the aioquic relay). Trusted by its key: the certificate does not name it.
        _ = try EncryptedDNSServer.shared()
        var hop = TestServers.relayHop(url: URL(string: "https://split.test:3129")!, trustTestCA: false)
        hop.tlsOptions.pinnedPublicKeySHA256 = [try TestServers.relayPublicKeySHA256()]
        var configuration = TestServers.configuration(hops: [hop])
        let privacy = PrivacyContext()
        privacy.requireEncryptedNameResolution(true, fallbackResolver: .https(EncryptedDNSServer.dohURL, serverAddresses: [EncryptedDNSServer.address]))
        configuration.privacyContext = privacy
        let linesBefore = try TestServers.allLogLines(TestServers.http3RelayALog).count
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        let reports = ReportCollector()
        session.onTunnelOpen { reports.add($0) }
        _ = try await session.data(from: URL(string: "https://origin.test/index.html")!)
        XCTAssertEqual(reports.all.first?.hop, "split.test:4433")
        XCTAssertEqual(reports.all.first?.protocolName, "QUIC, HTTP/3 CONNECT")
        let quic = try TestServers.ownSockets(.udp, to: "127.0.0.11:4433")
        let tunnels = try TestServers.http3RelayLines(TestServers.http3RelayALog, skipping: linesBefore, from: quic)
        XCTAssertEqual(tunnels.values(HTTP3RelayLogField.authority), ["origin.test:443"], "the HTTP/3 relay's log")
    }
}
