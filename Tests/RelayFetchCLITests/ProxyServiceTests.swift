import Foundation
import XCTest
import RelayFetchTestSupport

/// `relayfetch proxy` as a service: SIGHUP reloads the profile without dropping an open tunnel
/// (new connections take the new relay), SIGTERM stops listening but lets an open tunnel finish,
/// and the PID file exists exactly while it runs.
final class ProxyServiceTests: XCTestCase {
    override func setUpWithError() throws {
        try TestServers.ensureRunning()
        try SystemCallTrace.requireExecutableAndStrace()
    }

    /// A profile covering origin.test through the HTTP/2 relay at `relay`.
    private func writeProfile(_ file: URL, relay: URL, token: String) throws {
        let payload: [String: Any] = [
            "PayloadType": "com.apple.relay.managed", "PayloadUUID": UUID().uuidString, "MatchDomains": ["origin.test"],
            "Relays": [["HTTP2RelayURL": relay.absoluteString, "RawPublicKeys": [try TestServers.relayPublicKeyDER()],
                        "AdditionalHTTPHeaderFields": ["Proxy-Authorization": token]]],
        ]
        let plist: [String: Any] = ["PayloadType": "Configuration", "PayloadIdentifier": "test.proxy", "PayloadContent": [payload]]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: file)
    }

    /// A client holding one tunnel (HTTP CONNECT, then TLS to origin.test) open: its first line
    /// is "open"; once released it sends one request with `marker` over the same tunnel and
    /// prints the status line.
    private func tunnelClient(proxy: ProxyProcess, marker: String) throws -> HeldClients {
        let script = """
        import socket, ssl, sys
        raw = socket.create_connection(("\(ProxyProcess.address)", \(proxy.port)), timeout=20)
        raw.sendall(b"CONNECT origin.test:443 HTTP/1.1\\r\\nHost: origin.test:443\\r\\n\\r\\n")
        assert raw.recv(200).startswith(b"HTTP/1.1 200")
        tls = ssl.create_default_context(cafile="\(TestServers.caFile)").wrap_socket(raw, server_hostname="origin.test")
        print("open", flush=True)
        sys.stdin.readline()
        tls.sendall(b"GET /index.html?\(marker) HTTP/1.1\\r\\nHost: origin.test\\r\\nConnection: close\\r\\n\\r\\n")
        data = b""
        while True:
            chunk = tls.recv(65536)
            if not chunk:
                break
            data += chunk
        print(data.split(b"\\r\\n")[0].decode(), flush=True)
        """
        return try HeldClients(script: script)
    }

    /// Sends SIGHUP and waits (up to 10 s) until the proxy says it read its configuration again.
    private func reload(_ proxy: ProxyProcess) throws {
        kill(proxy.process.processIdentifier, SIGHUP)
        let deadline = Date().addingTimeInterval(10)
        while !(try proxy.text()).contains("configuration reloaded") && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        let log = try proxy.text()
        XCTAssertTrue(log.contains("configuration reloaded"), log)
    }

    func testSIGHUPReloadsTheProfileAndKeepsOpenTunnels() throws {
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-proxy-\(UUID().uuidString).mobileconfig")
        defer { try? FileManager.default.removeItem(at: profile) }
        try writeProfile(profile, relay: TestServers.http2RelayAURL, token: TestServers.relayToken)
        let proxy = try ProxyProcess(["--profile", profile.path])
        let before = TestServers.marker("proxy-hup-old")
        let client = try tunnelClient(proxy: proxy, marker: before)
        XCTAssertEqual(client.line, "open")
        try writeProfile(profile, relay: TestServers.http2RelayBURL, token: TestServers.relayBToken)
        try reload(proxy)
        client.release()
        XCTAssertEqual(client.readLine(), "HTTP/1.1 200 OK", "the tunnel opened before the reload still works")
        let after = TestServers.marker("proxy-hup-new")
        let fresh = try ProxyCommandTests.curl(["--socks5-hostname", proxy.socks, "https://origin.test/index.html?\(after)", "-o", "/dev/null"])
        XCTAssertEqual(fresh.status, 0, fresh.output)
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: before, skipping: 0).map { $0.first }, ["127.0.0.11"])
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: after, skipping: 0).map { $0.first }, ["127.0.0.12"],
                       "a connection after the reload takes the new profile's relay")
        XCTAssertEqual(proxy.stop(), 0)
    }

    /// With no relay option, the proxy runs on the installed profiles (issue 26 item 3), and a
    /// SIGHUP reads them again: the user's profile moves from relay A to relay B.
    func testSIGHUPRereadsTheInstalledProfiles() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-proxy-home-\(UUID().uuidString)")
        let system = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-proxy-etc-\(UUID().uuidString)")
        defer { for folder in [home, system] { try? FileManager.default.removeItem(at: folder) } }
        let folder = home.appendingPathComponent("relayfetch")
        for made in [folder, system] { try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true) }
        let profile = folder.appendingPathComponent("managed.mobileconfig")
        try writeProfile(profile, relay: TestServers.http2RelayAURL, token: TestServers.relayToken)
        let proxy = try ProxyProcess([], environment: ["XDG_CONFIG_HOME": home.path, "RELAYFETCH_SYSTEM_CONFIG_DIR": system.path])
        let before = TestServers.marker("proxy-installed-old")
        let first = try ProxyCommandTests.curl(["--socks5-hostname", proxy.socks, "https://origin.test/index.html?\(before)", "-o", "/dev/null"])
        XCTAssertEqual(first.status, 0, first.output)
        try writeProfile(profile, relay: TestServers.http2RelayBURL, token: TestServers.relayBToken)
        try reload(proxy)
        let after = TestServers.marker("proxy-installed-new")
        let second = try ProxyCommandTests.curl(["--socks5-hostname", proxy.socks, "https://origin.test/index.html?\(after)", "-o", "/dev/null"])
        XCTAssertEqual(second.status, 0, second.output)
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: before, skipping: 0).map { $0.first }, ["127.0.0.11"])
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: after, skipping: 0).map { $0.first }, ["127.0.0.12"],
                       "after SIGHUP the installed profile's new relay carries new connections")
        XCTAssertEqual(proxy.stop(), 0)
    }

    func testSIGTERMStopsListeningDrainsOpenTunnelsAndRemovesThePIDFile() throws {
        let pidFile = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-proxy-\(UUID().uuidString).pid")
        let proxy = try ProxyProcess(CommandRun.relayArguments + ["--pid-file", pidFile.path])
        XCTAssertEqual(try String(contentsOf: pidFile, encoding: .utf8), "\(proxy.process.processIdentifier)\n")
        let marker = TestServers.marker("proxy-drain")
        let client = try tunnelClient(proxy: proxy, marker: marker)
        XCTAssertEqual(client.line, "open")
        kill(proxy.process.processIdentifier, SIGTERM)
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertTrue(proxy.process.isRunning, "the proxy ended with a tunnel open")
        let refused = try ProxyCommandTests.curl(["--socks5-hostname", proxy.socks, "https://origin.test/index.html"])
        XCTAssertEqual(refused.status, 7, "a new connection after SIGTERM: \(refused.output)")
        client.release()
        XCTAssertEqual(client.readLine(), "HTTP/1.1 200 OK", "the open tunnel was cut")
        XCTAssertEqual(proxy.stop(timeout: 10), 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: pidFile.path), "the PID file outlived the proxy")
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).map { $0.first }, ["127.0.0.11"])
    }
}
