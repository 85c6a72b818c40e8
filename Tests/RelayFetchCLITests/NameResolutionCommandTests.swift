import Foundation
import XCTest
import RelayFetchTestSupport

/// The encrypted-DNS and HTTP/3 relay options of the fetching commands, against the test
/// resolver (EncryptedDNSServer) and relay A.
final class NameResolutionCommandTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    private let token = ["--relay-header", "Proxy-Authorization: \(TestServers.relayToken)", "--relay-cacert", TestServers.caFile,
                         "--cacert", TestServers.caFile]

    func testDoTResolvesTheRelayAndAutoSpeaksHTTP3ToIt() async throws {
        let dns = try EncryptedDNSServer.shared()
        let before = try dns.questions().count
        let run = await CommandRun.run(["get", "https://origin.test/index.html", "-v", "-o", "/dev/null", "--relay", "https://relay.test:4433"] + token
                                       + ["--dot", "dns.test", "--dns-server-address", EncryptedDNSServer.address, "--require-encrypted-dns"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("* hop 1 (relay.test:4433, QUIC, HTTP/3 CONNECT): tunnel open after"), run.stderr)
        let asked = try dns.questions(after: before, atLeast: 4).filter { $0[DNSQuestionField.service.rawValue] != "dot-connection" }
        XCTAssertEqual(Set(asked.map { "\($0[DNSQuestionField.service.rawValue]) \($0[DNSQuestionField.httpVersion.rawValue]) \($0[DNSQuestionField.name.rawValue])" }),
                       ["dot dot relay.test"], "DoT with ALPN dot")
    }

    func testObliviousDoHWithTheTargetsConfigsFromAFile() async throws {
        let dns = try EncryptedDNSServer.shared()
        let before = try dns.questions().count
        let run = await CommandRun.run(["get", "https://origin.test/index.html", "-o", "/dev/null", "--relay", "https://relay.test:3129"] + token
                                       + ["--odoh-relay", EncryptedDNSServer.odohRelayURL.absoluteString,
                                          "--odoh-target", EncryptedDNSServer.odohTargetURL.absoluteString, "--odoh-keys", dns.odohConfigs.path,
                                          "--dns-server-address", EncryptedDNSServer.relayAddress, "--require-encrypted-dns"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let services = try dns.questions(after: before, atLeast: 6).map { $0[DNSQuestionField.service.rawValue] }
        XCTAssertEqual(services.filter { $0 == "odoh" }.count, 3, "A, AAAA and HTTPS of relay.test: \(services)")
        XCTAssertFalse(services.contains("odoh-config"), "the configs came from the file")
    }

    func testRelayH3NamesTheHTTP3EndpointOfTheHop() async {
        // squid on :3129 speaks no QUIC; the hop's HTTP/3 endpoint is relay A's aioquic on :4433.
        let run = await CommandRun.run(["get", "https://origin.test/index.html", "-v", "-o", "/dev/null",
                                        "--relay", TestServers.relayURL.absoluteString, "--relay-h3", "https://127.0.0.11:4433"] + token)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("* hop 1 (127.0.0.11:4433, QUIC, HTTP/3 CONNECT): tunnel open after"), run.stderr)
    }

    func testRequiredEncryptedDNSWithoutTheResolversAddressFails() async {
        let run = await CommandRun.run(["get", "https://origin.test/", "--relay", "https://relay.test:3129"] + token
                                       + ["--doh", EncryptedDNSServer.dohURL.absoluteString, "--require-encrypted-dns"])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("give its address (serverAddresses); give the resolver's address with --dns-server-address"), run.stderr)
    }

    func testOptionMistakesAreUsageErrors() async {
        let url = "https://origin.test/"
        let cases: [([String], String)] = [
            (["--doh", "http://dns.test/dns-query"], "--doh needs an https URL"),
            (["--doh-post"], "--doh-post applies to --doh"),
            (["--doh", "https://dns.test/dns-query", "--dot", "dns.test"], "use one of --doh, --dot and --odoh-relay/--odoh-target"),
            (["--odoh-relay", "https://odoh-relay.test/proxy"], "--odoh-relay and --odoh-target go together"),
            (["--dot", "dns.test", "--dns-server-address", "dns.test"], "--dns-server-address needs an IP address"),
            (["--dns-server-address", "127.0.0.50"], "--dns-server-address is the address of the --doh, --dot or --odoh-relay server"),
            (["--relay-h3", "https://127.0.0.11:4433"], "--relay-h3 must follow the --relay it applies to"),
            (["--relay", "https://127.0.0.11:4433", "--relay-protocol", "h2", "--relay-h3", "https://127.0.0.11:4433"], "needs --relay-protocol auto"),
            (["--odoh-relay", "https://r.test/p", "--odoh-target", "https://t.test/q", "--odoh-keys", "/nonexistent"], "--odoh-keys /nonexistent: no such readable file"),
        ]
        for (options, expected) in cases {
            let run = await CommandRun.run(["get", url] + options)
            XCTAssertEqual(run.status, 2, "\(options)")
            XCTAssertTrue(run.stderr.contains(expected), "expected \(expected)\ngot \(run.stderr)")
            XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, "one error line: \(run.stderr)")
        }
    }
}
