import Foundation
import XCTest
import RelayFetchTestSupport

/// The invariants held for `relayfetch proxy`: fail closed (a host no relay covers, and every
/// host when no relay answers, gets the protocol's error, never a direct connection), header
/// scope (the relay token reaches only its relay), and isolation (different logins never share
/// a relay connection, one login does). No DNS leak and disk avoidance are proven on the process
/// under strace, in ProcessLevelPrivacyTests+Proxy.swift.
final class ProxyPrivacyTests: XCTestCase {
    override func setUpWithError() throws {
        try TestServers.ensureRunning()
        try SystemCallTrace.requireExecutableAndStrace()
    }

    /// The SOCKS5 reply code the proxy gives a CONNECT to `host:port` (a raw client), or -1 when
    /// it closed without one.
    static func socksReplyCode(_ proxy: ProxyProcess, host: String, port: UInt16 = 443) throws -> Int {
        let script = """
        import socket
        s = socket.create_connection(("\(ProxyProcess.address)", \(proxy.port)), timeout=20)
        s.sendall(b"\\x05\\x01\\x00")
        assert s.recv(2) == b"\\x05\\x00"
        name = b"\(host)"
        s.sendall(b"\\x05\\x01\\x00\\x03" + bytes([len(name)]) + name + (\(port)).to_bytes(2, "big"))
        reply = s.recv(10)
        print(reply[1] if len(reply) >= 2 else -1)
        """
        let result = try ProxyProcess.run(HostileServer.python, ["-c", script])
        guard result.status == 0, let code = Int(result.output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw TestServerError(description: "SOCKS5 probe failed: \(result.output)")
        }
        return code
    }

    func testAHostNoRelayCoversIsRefusedNotReachedDirectly() throws {
        let proxy = try ProxyProcess(["--match-domain", "origin.test"] + CommandRun.relayArguments)
        XCTAssertEqual(try Self.socksReplyCode(proxy, host: "origin2.test"), 2, "SOCKS5: connection not allowed by ruleset")
        let marker = TestServers.marker("proxy-uncovered")
        let viaHTTP = try ProxyCommandTests.curl(["--proxy", "http://\(proxy.socks)", "https://origin2.test/index.html?\(marker)"])
        XCTAssertNotEqual(viaHTTP.status, 0)
        XCTAssertTrue(viaHTTP.output.contains("403"), viaHTTP.output)
        let viaSOCKS = try ProxyCommandTests.curl(["--socks5-hostname", proxy.socks, "https://origin2.test/index.html?\(marker)"])
        XCTAssertNotEqual(viaSOCKS.status, 0)
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertEqual(try TestServers.logLines(TestServers.originBLog, containing: marker).count, 0, "origin B was reached")
        let logged = try proxy.connectionLines(count: 3)
        XCTAssertEqual(logged.filter { $0.contains(" refused notAllowed ") }.count, 3, logged.joined(separator: "\n"))
        // The covered host still works through the same proxy.
        XCTAssertEqual(try Self.socksReplyCode(proxy, host: "origin.test"), 0)
    }

    /// A target the last relay cannot reach: SOCKS5 "host unreachable", HTTP 502 (squid answers
    /// 500 for a name it cannot resolve, 503 for a port that refuses).
    func testTheLastRelaysFailureIsHostUnreachable() throws {
        let proxy = try ProxyProcess(CommandRun.relayArguments)
        XCTAssertEqual(try Self.socksReplyCode(proxy, host: "nosuch.test"), 4)
        XCTAssertEqual(try Self.socksReplyCode(proxy, host: "origin.test", port: 1), 4)
        let viaHTTP = try ProxyCommandTests.curl(["--proxy", "http://\(proxy.socks)", "https://nosuch.test/"])
        XCTAssertTrue(viaHTTP.output.contains("502"), viaHTTP.output)
    }

    func testWithEveryRelayDownTheClientGetsAnErrorAndNothingGoesDirect() throws {
        let proxy = try ProxyProcess(["--relay", TestServers.deadRelayURL.absoluteString, "--relay-cacert", TestServers.caFile, "--connect-timeout", "3"])
        XCTAssertEqual(try Self.socksReplyCode(proxy, host: "origin.test"), 3, "SOCKS5: network unreachable (no relay answers)")
        let marker = TestServers.marker("proxy-down")
        let viaHTTP = try ProxyCommandTests.curl(["--proxy", "http://\(proxy.socks)", "https://origin.test/index.html?\(marker)"])
        XCTAssertNotEqual(viaHTTP.status, 0)
        XCTAssertTrue(viaHTTP.output.contains("502"), viaHTTP.output)
        let viaSOCKS = try ProxyCommandTests.curl(["--socks5-hostname", proxy.socks, "https://origin.test/index.html?\(marker)"])
        XCTAssertNotEqual(viaSOCKS.status, 0)
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertEqual(try TestServers.logLines(TestServers.originALog, containing: marker).count, 0, "the origin was reached without the relay")
        XCTAssertTrue(try proxy.connectionLines(count: 3).allSatisfy { $0.contains(" refused relayUnreachable ") })
    }

    /// Over one HTTP/3 relay connection per session: two logins, two QUIC connections in the
    /// relay's log (by peer address and port); the same login twice, one.
    func testDifferentLoginsNeverShareARelayConnectionAndOneLoginDoes() throws {
        let origin = try PlainOrigin(files: ["a.txt": Data("a\n".utf8)])
        let proxy = try ProxyProcess(["--relay", TestServers.http2RelayAURL.absoluteString, "--relay-protocol", "h3",
                                      "--relay-header", "Proxy-Authorization: \(TestServers.relayToken)", "--relay-cacert", TestServers.caFile,
                                      "--user", "alice:a-pass", "--user", "bob:b-pass"])
        let target = "\(PlainOrigin.address):\(origin.server.port)"
        for login in ["alice:a-pass", "alice:a-pass", "bob:b-pass"] {
            let result = try ProxyCommandTests.curl(["--socks5-hostname", proxy.socks, "--proxy-user", login, "\(origin.url)/a.txt"])
            XCTAssertEqual(result.output, "a\n")
        }
        let lines = try TestServers.waitForLogLines(TestServers.http3RelayALog, containing: "\t\(target)\t", skipping: 0, count: 3)
        XCTAssertEqual(lines.count, 3)
        let peers = lines.map { $0[HTTP3RelayLogField.peer.rawValue] }
        XCTAssertEqual(peers[0], peers[1], "one login: one relay connection")
        XCTAssertNotEqual(peers[1], peers[2], "two logins shared a relay connection")
        XCTAssertEqual(try origin.requests().map(\.peer), ["127.0.0.11", "127.0.0.11", "127.0.0.11"])
    }

    /// Header scope: the relay's token goes on the CONNECT to that relay only; the origin (over
    /// SOCKS5 and the HTTP proxy's absolute form) never sees it, nor the client's proxy login.
    func testTheRelayTokenAndTheProxyLoginNeverReachTheOrigin() throws {
        let origin = try PlainOrigin(files: ["h.txt": Data("h\n".utf8)])
        let proxy = try ProxyProcess(CommandRun.relayArguments + ["--user", "carol:c-pass"])
        for arguments in [["--socks5-hostname", proxy.socks, "--proxy-user", "carol:c-pass"], ["--proxy", "http://carol:c-pass@\(proxy.socks)"]] {
            let result = try ProxyCommandTests.curl(arguments + ["\(origin.url)/h.txt"])
            XCTAssertEqual(result.output, "h\n")
        }
        let requests = try origin.requests()
        XCTAssertEqual(requests.count, 2)
        for request in requests {
            XCTAssertFalse(request.headers.contains("relay-token"), request.headers)
            XCTAssertFalse(request.headers.lowercased().contains("authorization"), request.headers)
        }
    }
}
