import Foundation
import XCTest
import RelayFetchTestSupport

/// The same system-call checks for every way out: HTTP/2 and HTTP/3 chains, Oblivious HTTP, and
/// a page whose subresources come from other hosts and through redirects.
extension ProcessLevelPrivacyTests {
    /// The options for one relay hop of a chain, with its token and the test CA.
    private func hop(_ url: String, _ relayProtocol: String, token: String) -> [String] {
        ["--relay", url, "--relay-protocol", relayProtocol, "--relay-header", "Proxy-Authorization: \(token)", "--relay-cacert", TestServers.caFile]
    }

    func testHTTP2ChainDialsOnlyTheFirstRelay() throws {
        let marker = TestServers.marker("strace-h2h2")
        let (status, output, trace) = try traced(["get", "https://origin.test/index.html?\(marker)", "-o", "/dev/null", "--cacert", TestServers.caFile]
                                                 + hop(TestServers.http2RelayAURL.absoluteString, "h2", token: TestServers.relayToken)
                                                 + hop(TestServers.http2RelayBURL.absoluteString, "h2", token: TestServers.relayBToken))
        XCTAssertEqual(status, 0, output)
        assertDialledOnly([.init(kind: .tcp, address: "127.0.0.11:4433")], in: trace)
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first?.first, "127.0.0.12", "the request went through B")
    }

    func testHTTP3ChainSendsOnlyUDPToTheFirstRelay() throws {
        let marker = TestServers.marker("strace-h3h3")
        let (status, output, trace) = try traced(["get", "https://origin.test/index.html?\(marker)", "-o", "/dev/null", "--cacert", TestServers.caFile]
                                                 + hop("https://127.0.0.11:4433", "h3", token: TestServers.relayToken)
                                                 + hop("https://127.0.0.12:4433", "h3", token: TestServers.relayBToken))
        XCTAssertEqual(status, 0, output)
        assertDialledOnly([.init(kind: .udp, address: "127.0.0.11:4433")], in: trace)
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first?.first, "127.0.0.12", "the request went through B")
    }

    func testObliviousHTTPDialsOnlyTheOHTTPRelay() throws {
        let marker = TestServers.marker("strace-ohttp")
        let (status, output, trace) = try traced(["get", "https://origin.test/index.html?\(marker)", "-o", "/dev/null", "--cacert", TestServers.caFile,
                                                  "--ohttp-relay", "\(TestServers.ohttpRelayURL.absoluteString)/relay",
                                                  "--ohttp-keys", TestServers.ohttpKeysFile.path])
        XCTAssertEqual(status, 0, output)
        assertDialledOnly([.init(kind: .tcp, address: "127.0.0.30:443")], in: trace)
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first?.first, "127.0.0.32", "the gateway fetched it")
    }

    /// Invariant 3 for a page whose images are spooled (`--warc`, bodies past 1 MiB): the only
    /// files written are the named WARC and unnamed files (O_TMPFILE) in its folder.
    func testPageWithLargeImagesWritesOnlyTheWARCAndUnnamedFiles() throws {
        let origin = try BulkOrigin(host: "127.0.0.113")
        defer { origin.server.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-spool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let warc = folder.appendingPathComponent("page.warc")
        let (status, output, trace) = try traced(["page", "https://\(origin.server.host):\(origin.server.port)/page/\(4 << 20)/2", "--warc", warc.path]
                                                 + CommandRun.relayArguments)
        XCTAssertEqual(status, 0, output)
        assertDialledOnly(Self.relayA, in: trace)
        let writes = trace.fileWrites
        XCTAssertEqual(writes.count, 3, "\(writes)")
        XCTAssertEqual(writes.filter { $0.hasPrefix("openat(AT_FDCWD, \"\(folder.path)\", ") && $0.contains("O_TMPFILE") }.count, 2, "\(writes)")
        XCTAssertEqual(writes.filter { $0.contains("\"\(warc.path)\"") }.count, 1, "\(writes)")
        // Positive control: both images were spooled whole into the WARC.
        XCTAssertEqual(try origin.events("SENT").filter { $0.count > 3 && $0[2] == String(4 << 20) && $0[3] == "complete" }.count, 2)
        XCTAssertGreaterThan(try FileManager.default.attributesOfItem(atPath: warc.path)[.size] as? Int ?? 0, 8 << 20)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["page.warc"])
    }

    /// A page that arrives through a redirect, with a stylesheet and images from another host
    /// (by name and by an IP literal a direct connection could reach) and an image behind a
    /// cross-host redirect: only the relay is dialled, and only the named HAR and WARC are written.
    func testPageWithThirdPartyHostsAndRedirectsDialsOnlyTheRelay() throws {
        let origin = try HostileServer(script: "redirecting_origin.py")
        defer { origin.stop() }
        let marker = TestServers.marker("strace-page")
        let directory = FileManager.default.temporaryDirectory
        let har = directory.appendingPathComponent("relayfetch-page-\(UUID().uuidString).har")
        let warc = directory.appendingPathComponent("relayfetch-page-\(UUID().uuidString).warc")
        defer { try? FileManager.default.removeItem(at: har); try? FileManager.default.removeItem(at: warc) }
        let (status, output, trace) = try traced(["page", "https://origin.test:\(origin.port)/moved?\(marker)", "--complete", "--har", har.path, "--warc", warc.path]
                                                 + CommandRun.relayArguments)
        XCTAssertEqual(status, 0, output)
        assertDialledOnly(Self.relayA, in: trace)
        let writes = trace.fileWrites
        XCTAssertEqual(writes.count, 2, "\(writes)")
        XCTAssertTrue(writes.contains { $0.contains("\"\(har.path)\"") } && writes.contains { $0.contains("\"\(warc.path)\"") }, "\(writes)")

        // Positive controls: the redirects were followed and every third-party request arrived, via the relay.
        XCTAssertEqual(try origin.events().map { $0.components(separatedBy: "\t").last ?? "" },
                       ["/moved?\(marker)", "/page.html?\(marker)", "/to-third-party.svg?\(marker)"])
        let thirdParty = try TestServers.waitForLogLines(TestServers.originBLog, containing: marker, skipping: 0, count: 4)
        XCTAssertEqual(Set(thirdParty.map { "\($0[OriginLogField.host.rawValue]) \($0[OriginLogField.uri.rawValue])" }),
                       ["origin2.test /style.css?\(marker)", "origin2.test /logo.svg?\(marker)", "127.0.0.22 /bg.svg?\(marker)",
                        "origin2.test /logo.svg?\(marker)-redirected"])
        XCTAssertEqual(Set(thirdParty.map { $0[OriginLogField.remoteAddress.rawValue] }), ["127.0.0.11"], "\(thirdParty)")
    }
}
