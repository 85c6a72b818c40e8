import Foundation
import XCTest
import RelayFetchTestSupport

/// `relayfetch proxy --chain`: a pool of relay chains, as crawl's. Each connection goes through
/// the chain its login's session picks, and fails over to the next chain when the chain's relay
/// is down; with every chain down, the client gets the SOCKS5 or HTTP error and nothing goes
/// direct. The dead relays are addresses of this suite's range (127.0.21.0/24) where nothing
/// listens.
final class ProxyChainPoolTests: XCTestCase {
    override func setUpWithError() throws {
        try TestServers.ensureRunning()
        try SystemCallTrace.requireExecutableAndStrace()
    }

    static func deadChain(_ address: String) -> [String] {
        ["--relay", "https://\(address):3129", "--relay-cacert", TestServers.caFile, "--connect-timeout", "3"]
    }

    /// Chain 1's relay is dead, chain 2 is relay A then relay B: every connection (SOCKS5 and
    /// HTTP CONNECT, by name) comes out of relay B, as origin A's log shows, and the proxy's log
    /// names chain 2.
    func testConnectionsFailOverToTheSecondChainWhenTheFirstChainsRelayIsDead() throws {
        let proxy = try ProxyProcess(Self.deadChain("127.0.21.1") + ["--cacert", TestServers.caFile, "--chain"] + CommandRun.twoHopRelayArguments)
        let marker = TestServers.marker("proxy-chain-failover")
        for index in 1...3 {
            let viaSOCKS = try ProxyCommandTests.curl(["--socks5-hostname", proxy.socks, "https://origin.test/index.html?\(marker)-\(index)", "-o", "/dev/null"])
            XCTAssertEqual(viaSOCKS.status, 0, viaSOCKS.output)
        }
        let viaHTTP = try ProxyCommandTests.curl(["--proxy", "http://\(proxy.socks)", "https://origin.test/index.html?\(marker)-4", "-o", "/dev/null"])
        XCTAssertEqual(viaHTTP.status, 0, viaHTTP.output)
        for index in 1...4 {
            let lines = try TestServers.waitForLogLines(TestServers.originALog, containing: "\(marker)-\(index)", skipping: 0)
            XCTAssertEqual(lines.map { $0.first }, ["127.0.0.12"], "connection \(index): the origin saw chain 2's last relay, once")
        }
        let logged = try proxy.connectionLines(count: 4)
        XCTAssertEqual(logged.count, 4, logged.joined(separator: "\n"))
        XCTAssertTrue(logged.allSatisfy { $0.contains(" chain 127.0.0.11:3129>127.0.0.12:3129 ") && $0.hasSuffix(" ok") }, logged.joined(separator: "\n"))
        XCTAssertEqual(proxy.stop(), 0)
    }

    /// Chain choice is per login: chain 1 is relay A, chain 2 relay A then relay B. Alice's first
    /// host takes chain 1 and her second the chain with fewer hosts, chain 2 (origin B sees relay
    /// B); Bob's first host is that same second host, and his own pool gives it chain 1 (origin B
    /// sees relay A), where a pool shared between logins would have kept it on chain 2.
    func testEachLoginHasAPoolOfItsOwn() throws {
        let proxy = try ProxyProcess(CommandRun.relayArguments + ["--user", "alice:a-pass", "--user", "bob:b-pass", "--chain"]
                                     + CommandRun.twoHopRelayArguments)
        let marker = TestServers.marker("proxy-chain-logins")
        let fetches = [("alice:a-pass", "origin.test", TestServers.originALog), ("alice:a-pass", "origin2.test", TestServers.originBLog),
                       ("bob:b-pass", "origin2.test", TestServers.originBLog)]
        var peers: [String?] = []
        for (index, (login, host, log)) in fetches.enumerated() {
            let result = try ProxyCommandTests.curl(["--socks5-hostname", proxy.socks, "--proxy-user", login,
                                                     "https://\(host)/index.html?\(marker)-\(index)", "-o", "/dev/null"])
            XCTAssertEqual(result.status, 0, result.output)
            peers += try TestServers.waitForLogLines(log, containing: "\(marker)-\(index)", skipping: 0).map { $0.first }
        }
        XCTAssertEqual(peers, ["127.0.0.11", "127.0.0.12", "127.0.0.11"])
    }

    /// The last relay's refusal to reach a target (squid's 503 for a port that refuses) is the
    /// target's failure, not the chain's: the client hears "host unreachable" (4) from chain 1,
    /// no other chain is tried, and the host stays on chain 1 (origin A sees relay A), where a
    /// rested chain 1 would have moved it to chain 2 (relay B).
    func testATargetTheLastRelayCannotReachRestsNoChain() throws {
        let proxy = try ProxyProcess(CommandRun.relayArguments + ["--chain"] + CommandRun.twoHopRelayArguments)
        XCTAssertEqual(try ProxyPrivacyTests.socksReplyCode(proxy, host: "origin.test", port: 1), 4)
        let marker = TestServers.marker("proxy-chain-target")
        let result = try ProxyCommandTests.curl(["--socks5-hostname", proxy.socks, "https://origin.test/index.html?\(marker)", "-o", "/dev/null"])
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).map { $0.first }, ["127.0.0.11"])
        let logged = try proxy.connectionLines(count: 2)
        XCTAssertTrue(logged.first?.contains(" chain 127.0.0.11:3129 target - up 0 down 0 ") == true, logged.joined(separator: "\n"))
    }

    /// Both chains dead: SOCKS5 "network unreachable" (3) and HTTP 502, and origin A's address,
    /// which a direct connection reaches (proven first), sees nothing of the requests.
    func testWithEveryChainDeadTheClientGetsAnErrorAndNothingGoesDirect() async throws {
        try await TestServers.proveDirectlyReachable(TestServers.originAAddress)
        let proxy = try ProxyProcess(Self.deadChain("127.0.21.1") + ["--chain"] + Self.deadChain("127.0.21.2"))
        let target = TestServers.originAAddress
        XCTAssertEqual(try ProxyPrivacyTests.socksReplyCode(proxy, host: target), 3, "SOCKS5: network unreachable (no chain answers)")
        let marker = TestServers.marker("proxy-chains-down")
        let viaSOCKS = try ProxyCommandTests.curl(["--socks5-hostname", proxy.socks, "https://\(target)/index.html?\(marker)"])
        XCTAssertNotEqual(viaSOCKS.status, 0)
        let viaHTTP = try ProxyCommandTests.curl(["--proxy", "http://\(proxy.socks)", "https://\(target)/index.html?\(marker)"])
        XCTAssertNotEqual(viaHTTP.status, 0)
        XCTAssertTrue(viaHTTP.output.contains("502"), viaHTTP.output)
        try await Task.sleep(nanoseconds: 500_000_000)
        XCTAssertEqual(try TestServers.logLines(TestServers.originALog, containing: marker).count, 0, "the origin was reached without a relay")
        let logged = try proxy.connectionLines(count: 3)
        XCTAssertEqual(logged.count, 3, logged.joined(separator: "\n"))
        XCTAssertTrue(logged.allSatisfy { $0.contains(" refused relayUnreachable ") }, logged.joined(separator: "\n"))
        XCTAssertTrue(logged[0].contains(" chain 127.0.21.2:3129 "), "the first connection tried both chains: \(logged[0])")
    }
}
