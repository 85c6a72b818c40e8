import Foundation
import XCTest
import RelayFetchTestSupport

/// `relayfetch proxy` with real clients through the test relays: curl over SOCKS5 (names sent,
/// never resolved) and as an HTTP proxy (CONNECT for https, absolute form for http), Python
/// requests over socks5h://, through one relay and through two; the origins' logs show the last
/// relay's address. And the options: --check, and what a listen address needs.
final class ProxyCommandTests: XCTestCase {
    override func setUpWithError() throws {
        try TestServers.ensureRunning()
        try SystemCallTrace.requireExecutableAndStrace()
    }

    static let curl = "/usr/bin/curl"

    /// curl's status and the body it printed (-sS: errors in the output too).
    static func curl(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try ProxyProcess.run(curl, ["-sS", "--max-time", "20", "--cacert", TestServers.caFile] + arguments)
    }

    func testCurlSOCKS5HostnameAndHTTPConnectThroughOneRelay() throws {
        let proxy = try ProxyProcess(CommandRun.relayArguments + ["--log-targets"])
        let socksMarker = TestServers.marker("proxy-socks")
        let connectMarker = TestServers.marker("proxy-connect")
        let viaSOCKS = try Self.curl(["--socks5-hostname", proxy.socks, "https://origin.test/index.html?\(socksMarker)"])
        XCTAssertEqual(viaSOCKS.status, 0, viaSOCKS.output)
        let viaHTTP = try Self.curl(["--proxy", "http://\(proxy.socks)", "https://origin.test/index.html?\(connectMarker)"])
        XCTAssertEqual(viaHTTP.status, 0, viaHTTP.output)
        for marker in [socksMarker, connectMarker] {
            let lines = try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0)
            XCTAssertEqual(lines.map { $0.first }, ["127.0.0.11"], "the origin saw relay A, and only it")
        }
        let logged = try proxy.connectionLines(count: 2)
        XCTAssertEqual(logged.count, 2, logged.joined(separator: "\n"))
        XCTAssertTrue(logged[0].contains(" socks5 chain 127.0.0.11:3129 target origin.test:443 up "), logged[0])
        XCTAssertTrue(logged[1].contains(" http-connect chain 127.0.0.11:3129 target origin.test:443 up "), logged[1])
        XCTAssertTrue(logged.allSatisfy { $0.hasSuffix(" ok") }, logged.joined(separator: "\n"))
        XCTAssertEqual(proxy.stop(), 0)
    }

    /// Two hops: an https target over SOCKS5 and an http:// URL through the HTTP proxy (absolute
    /// form, rewritten to origin form for a plain origin of our own): each origin saw relay B.
    func testCurlThroughTwoRelaysOverSOCKS5AndAbsoluteFormHTTP() throws {
        let origin = try PlainOrigin(files: ["hello.txt": Data("hello through two relays\n".utf8)])
        let proxy = try ProxyProcess(CommandRun.twoHopRelayArguments)
        let marker = TestServers.marker("proxy-2hop")
        let viaSOCKS = try Self.curl(["--socks5-hostname", proxy.socks, "https://origin.test/index.html?\(marker)", "-o", "/dev/null"])
        XCTAssertEqual(viaSOCKS.status, 0, viaSOCKS.output)
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).map { $0.first }, ["127.0.0.12"])
        let viaHTTP = try Self.curl(["--proxy", "http://\(proxy.socks)", "\(origin.url)/hello.txt?\(marker)"])
        XCTAssertEqual(viaHTTP.status, 0, viaHTTP.output)
        XCTAssertEqual(viaHTTP.output, "hello through two relays\n")
        let requests = try origin.requests()
        XCTAssertEqual(requests.map(\.peer), ["127.0.0.12"])
        XCTAssertEqual(requests.map(\.target), ["/hello.txt?\(marker)"], "the origin got the origin form")
        XCTAssertFalse(requests[0].headers.lowercased().contains("proxy-"), requests[0].headers)
        let logged = try proxy.connectionLines(count: 2)
        XCTAssertTrue(logged.allSatisfy { $0.contains(" chain 127.0.0.11:3129>127.0.0.12:3129 target - ") }, logged.joined(separator: "\n"))
    }

    /// Python requests with socks5h:// (PySocks): the name goes to the proxy, the login picks
    /// the user the log line names.
    func testPythonRequestsOverSOCKS5h() throws {
        let proxy = try ProxyProcess(CommandRun.relayArguments + ["--user", "alice:s3cret"])
        let marker = TestServers.marker("proxy-python")
        let script = """
        import requests, sys
        proxies = {"https": "socks5h://alice:s3cret@\(proxy.socks)"}
        response = requests.get("https://origin.test/index.html?\(marker)", proxies=proxies, verify="\(TestServers.caFile)", timeout=20)
        print(response.status_code, len(response.content))
        try:
            requests.get("https://origin.test/", proxies={"https": "socks5h://alice:wrong@\(proxy.socks)"}, verify="\(TestServers.caFile)", timeout=20)
            print("wrong password accepted")
        except Exception as error:
            print("refused:", type(error).__name__)
        """
        let result = try ProxyProcess.run(HostileServer.python, ["-c", script])
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.output.hasPrefix("200 "), result.output)
        XCTAssertTrue(result.output.contains("refused:"), result.output)
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).map { $0.first }, ["127.0.0.11"])
        let logged = try proxy.connectionLines()
        XCTAssertTrue(logged.first?.contains(" user alice socks5 ") == true, logged.joined(separator: "\n"))
    }

    func testCheckPrintsTheConfigurationAndListenRulesAreEnforced() async throws {
        let check = await CommandRun.run(["proxy", "--check", "--listen", "[::1]:1081", "--match-domain", "origin.test"] + CommandRun.relayArguments)
        XCTAssertEqual(check.status, 0, check.stderr)
        XCTAssertTrue(check.stdoutText.contains("listen: [::1]:1081"), check.stdoutText)
        XCTAssertTrue(check.stdoutText.contains("relays 1: https://127.0.0.11:3129 for hosts in origin.test"), check.stdoutText)
        XCTAssertTrue(check.stdoutText.contains("other hosts: refused (never direct)"), check.stdoutText)
        let remote = await CommandRun.run(["proxy", "--check", "--listen", "0.0.0.0:1080"] + CommandRun.relayArguments)
        XCTAssertEqual(remote.status, 2)
        XCTAssertTrue(remote.stderr.contains("--allow-remote"), remote.stderr)
        let noUser = await CommandRun.run(["proxy", "--check", "--listen", "0.0.0.0:1080", "--allow-remote"] + CommandRun.relayArguments)
        XCTAssertEqual(noUser.status, 2)
        XCTAssertTrue(noUser.stderr.contains("needs --user"), noUser.stderr)
        let allowed = await CommandRun.run(["proxy", "--check", "--listen", "0.0.0.0:1080", "--allow-remote", "--user", "a:b"] + CommandRun.relayArguments)
        XCTAssertEqual(allowed.status, 0, allowed.stderr)
        let noRelay = await CommandRun.run(["proxy", "--check"])
        XCTAssertEqual(noRelay.status, 2)
        XCTAssertTrue(noRelay.stderr.contains("proxy needs relays"), noRelay.stderr)
    }

    /// Listening on IPv6 loopback, serving an IP-literal target (sent to the relay as it is).
    func testIPv6LoopbackListenerServesLiteralTargets() throws {
        let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        var length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        close(fd)
        XCTAssertTrue(bound)
        let port = UInt16(bigEndian: address.sin6_port)
        let proxy = try ProxyProcess(["--listen", "[::1]:\(port)", "--log-targets"] + CommandRun.relayArguments, listen: false)
        let marker = TestServers.marker("proxy-v6")
        let result = try Self.curl(["--socks5-hostname", "[::1]:\(port)", "--insecure", "https://127.0.0.21/index.html?\(marker)", "-o", "/dev/null"])
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).map { $0.first }, ["127.0.0.11"])
        let logged = try proxy.connectionLines()
        XCTAssertTrue(logged.first?.hasPrefix("proxy: client [::1]:") == true, logged.joined(separator: "\n"))
        XCTAssertTrue(logged.first?.contains(" target 127.0.0.21:443 ") == true, logged.joined(separator: "\n"))
    }

    /// A Unix socket with the mode asked for, served like the TCP port.
    func testUnixSocketListenerHasItsModeAndServes() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("rf-proxy-\(UUID().uuidString.prefix(8)).sock").path
        let proxy = try ProxyProcess(["--listen", "unix:\(path)", "--listen-mode", "660"] + CommandRun.relayArguments, listen: false)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o660)
        let marker = TestServers.marker("proxy-unix")
        // curl does not reach a proxy over a Unix socket: a CONNECT by hand, then TLS to the origin.
        let script = """
        import socket, ssl
        raw = socket.socket(socket.AF_UNIX)
        raw.connect("\(path)")
        raw.sendall(b"CONNECT origin.test:443 HTTP/1.1\\r\\nHost: origin.test:443\\r\\n\\r\\n")
        print(raw.recv(100).split(b"\\r\\n")[0].decode())
        tls = ssl.create_default_context(cafile="\(TestServers.caFile)").wrap_socket(raw, server_hostname="origin.test")
        tls.sendall(b"GET /index.html?\(marker) HTTP/1.1\\r\\nHost: origin.test\\r\\nConnection: close\\r\\n\\r\\n")
        print(tls.recv(100).split(b"\\r\\n")[0].decode())
        """
        let result = try ProxyProcess.run(HostileServer.python, ["-c", script])
        XCTAssertEqual(result.output, "HTTP/1.1 200 Connection established\nHTTP/1.1 200 OK\n")
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).map { $0.first }, ["127.0.0.11"])
        XCTAssertEqual(proxy.stop(), 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "the socket file is removed on exit")
    }
}
