import Foundation
import XCTest
import RelayFetchTestSupport

/// Encrypted name resolution under strace: with --require-encrypted-dns and a DoH resolver, the
/// names relayfetch resolves itself (the first relay's, an excluded host's, the OHTTP relay's) go
/// only to the resolver, and no port-53 packet, /etc/hosts, nsswitch.conf or resolv.conf read
/// shows up; the resolver's log shows who asked what.
extension ProcessLevelPrivacyTests {
    private var encryptedDNS: [String] {
        ["--doh", EncryptedDNSServer.dohURL.absoluteString, "--dns-server-address", EncryptedDNSServer.address, "--require-encrypted-dns"]
    }

    /// Relay A by a name only the encrypted resolver knows, with its token and the test CA.
    private var relayAByName: [String] {
        ["--relay", "https://relay.test:3129", "--relay-header", "Proxy-Authorization: \(TestServers.relayToken)",
         "--relay-cacert", TestServers.caFile, "--cacert", TestServers.caFile]
    }

    private static var doh: SystemCallTrace.Dial { SystemCallTrace.Dial(kind: .tcp, address: "\(EncryptedDNSServer.address):443") }

    /// The names `run` asked the resolver for, from its log.
    private func namesAsked(_ dns: EncryptedDNSServer, during run: () throws -> Void) throws -> Set<String> {
        let before = try dns.questions().count
        try run()
        return Set(try dns.questions(after: before, atLeast: 2).map { "\($0[DNSQuestionField.service.rawValue]) \($0[DNSQuestionField.name.rawValue])" })
    }

    /// Automatic (the transport dials the relay), and h1 (libcurl dials it, at the address the
    /// session's resolver pinned for it).
    func testRelayNameIsResolvedOnlyOverDoH() throws {
        for (protocolArguments, relayDials) in [([String](), Self.relayA), (["--relay-protocol", "h1"], [Self.relayATCP])] {
            try relayNameIsResolvedOnlyOverDoH(protocolArguments, relayDials: relayDials)
        }
    }

    private func relayNameIsResolvedOnlyOverDoH(_ protocolArguments: [String], relayDials: Set<SystemCallTrace.Dial>) throws {
        let dns = try EncryptedDNSServer.shared()
        let marker = TestServers.marker("strace-doh")
        let asked = try namesAsked(dns) {
            let (status, output, trace) = try traced(["get", "https://origin.test/index.html?\(marker)", "-o", "/dev/null"] + relayAByName + protocolArguments + encryptedDNS)
            XCTAssertEqual(status, 0, output)
            assertDialledOnly(relayDials.union([Self.doh]), in: trace)
        }
        XCTAssertEqual(asked, ["doh relay.test"])
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first?.first, "127.0.0.11")
    }

    /// origin.test, written as `host`, excluded from relaying: reached directly at the address the
    /// encrypted resolver gave for "origin.test", and only there.
    private func excludedHostIsResolvedOnlyOverDoH(_ dns: EncryptedDNSServer, written host: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let excluded = TestServers.marker("strace-doh-excluded")
        let asked = try namesAsked(dns) {
            let (status, output, trace) = try traced(["get", "https://\(host)/index.html?\(excluded)", "-o", "/dev/null", "--exclude-domain", "origin.test"]
                                                     + relayAByName + encryptedDNS)
            XCTAssertEqual(status, 0, output, file: file, line: line)
            assertDialledOnly([Self.doh, .init(kind: .tcp, address: "127.0.0.21:443")], in: trace, file: file, line: line)
        }
        XCTAssertEqual(asked, ["doh origin.test"], file: file, line: line)
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: excluded, skipping: 0).first?.first, "127.0.0.1", "reached directly",
                       file: file, line: line)
    }

    func testExcludedHostAndOHTTPRelayAreResolvedOnlyOverDoH() throws {
        let dns = try EncryptedDNSServer.shared()
        try excludedHostIsResolvedOnlyOverDoH(dns, written: "origin.test")

        let oblivious = TestServers.marker("strace-doh-ohttp")
        let asked = try namesAsked(dns) {
            let (status, output, trace) = try traced(["get", "https://origin.test/index.html?\(oblivious)", "-o", "/dev/null", "--cacert", TestServers.caFile,
                                                      "--ohttp-relay", "https://ohttp-relay.test/relay", "--ohttp-keys", TestServers.ohttpKeysFile.path]
                                                     + encryptedDNS)
            XCTAssertEqual(status, 0, output)
            assertDialledOnly([Self.doh, .init(kind: .tcp, address: "127.0.0.30:443")], in: trace)
        }
        XCTAssertEqual(asked, ["doh ohttp-relay.test"])
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: oblivious, skipping: 0).first?.first, "127.0.0.32", "the gateway fetched it")
    }

    /// A host written with capitals is the same host: excluded by --exclude-domain in lower case,
    /// resolved by the encrypted resolver under its lower-case name, and pinned by a --resolve
    /// entry written in lower case; no port-53 packet and no resolver file either way.
    func testCapitalisedExcludedHostIsResolvedOnlyOverDoHAndPinnedByResolve() throws {
        try excludedHostIsResolvedOnlyOverDoH(try EncryptedDNSServer.shared(), written: "Origin.TEST")

        let pinned = TestServers.marker("strace-resolve-capitals")
        let (status, output, trace) = try traced(["get", "https://Origin.Test/index.html?\(pinned)", "-o", "/dev/null", "--exclude-domain", "ORIGIN.test",
                                                  "--resolve", "origin.test:443:127.0.0.21"] + CommandRun.relayArguments + encryptedDNS)
        XCTAssertEqual(status, 0, output)
        assertDialledOnly([.init(kind: .tcp, address: "127.0.0.21:443")], in: trace)
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: pinned, skipping: 0).first?.first, "127.0.0.1", "reached directly")
    }

    func testRelayNameIsResolvedOnlyOverObliviousDoH() throws {
        let dns = try EncryptedDNSServer.shared()
        let marker = TestServers.marker("strace-odoh")
        let asked = try namesAsked(dns) {
            let (status, output, trace) = try traced(["get", "https://origin.test/index.html?\(marker)", "-o", "/dev/null"] + relayAByName
                                                     + ["--odoh-relay", EncryptedDNSServer.odohRelayURL.absoluteString,
                                                        "--odoh-target", EncryptedDNSServer.odohTargetURL.absoluteString,
                                                        "--dns-server-address", EncryptedDNSServer.relayAddress, "--require-encrypted-dns"])
            XCTAssertEqual(status, 0, output)
            assertDialledOnly(Self.relayA.union([.init(kind: .tcp, address: "\(EncryptedDNSServer.relayAddress):443")]), in: trace)
        }
        XCTAssertEqual(asked, ["odoh-relay odoh-target.test", "odoh-config -", "odoh relay.test"])
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first?.first, "127.0.0.11")
    }

    /// The control: without an encrypted resolver the same relay name goes to the system
    /// resolver, and the trace sees it (so the checks above can fail).
    func testWithoutEncryptedDNSTheTraceSeesTheSystemResolver() throws {
        let (status, _, trace) = try traced(["get", "https://origin.test/index.html", "-o", "/dev/null", "--connect-timeout", "3"] + relayAByName)
        XCTAssertEqual(status, 1, "relay.test is unknown to the system resolver")
        XCTAssertFalse(trace.resolverActivity.isEmpty, "the trace shows no name resolution")
    }
}
