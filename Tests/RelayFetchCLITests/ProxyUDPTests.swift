import Foundation
import XCTest
import RelayFetchTestSupport

/// SOCKS5 UDP ASSOCIATE through `relayfetch proxy`: datagrams cross CONNECT-UDP through the
/// HTTP/3 relay to a UDP echo server of our own and come back; a chain that cannot carry UDP
/// answers "command not supported".
final class ProxyUDPTests: XCTestCase {
    override func setUpWithError() throws {
        try TestServers.ensureRunning()
        try SystemCallTrace.requireExecutableAndStrace()
    }

    /// A SOCKS5 UDP client: associates, sends `count` datagrams to `target` and prints the
    /// reply code, then each answer's payload (or "timeout").
    static func udpClient(_ proxy: ProxyProcess, target: String, port: UInt16, count: Int = 3) -> String {
        """
        import socket
        c = socket.create_connection(("\(ProxyProcess.address)", \(proxy.port)), timeout=20)
        c.sendall(b"\\x05\\x01\\x00"); assert c.recv(2) == b"\\x05\\x00"
        c.sendall(b"\\x05\\x03\\x00\\x01\\x00\\x00\\x00\\x00\\x00\\x00")
        reply = c.recv(10)
        print("reply", reply[1])
        if reply[1] == 0:
            relay = (socket.inet_ntoa(reply[4:8]), int.from_bytes(reply[8:10], "big"))
            u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            u.settimeout(10)
            header = b"\\x00\\x00\\x00\\x01" + socket.inet_aton("\(target)") + (\(port)).to_bytes(2, "big")
            for i in range(\(count)):
                u.sendto(header + b"datagram-%d" % i, relay)
                try:
                    data, _ = u.recvfrom(2048)
                    print(data[:10] == header, data[10:].decode())
                except socket.timeout:
                    print("timeout")
        """
    }

    func testDatagramsCrossCONNECTUDPThroughTheHTTP3Relay() throws {
        let echo = try HostileServer(script: "udp_echo.py", host: "127.0.1.3")
        let proxy = try ProxyProcess(["--relay", TestServers.http2RelayAURL.absoluteString, "--relay-protocol", "h3",
                                      "--relay-header", "Proxy-Authorization: \(TestServers.relayToken)", "--relay-cacert", TestServers.caFile])
        let result = try ProxyProcess.run(HostileServer.python, ["-c", Self.udpClient(proxy, target: "127.0.1.3", port: echo.port)])
        XCTAssertEqual(result.output, "reply 0\nTrue datagram-0\nTrue datagram-1\nTrue datagram-2\n")
        let path = "/.well-known/masque/udp/127.0.1.3/\(echo.port)/"
        let lines = try TestServers.waitForLogLines(TestServers.http3RelayALog, containing: path, skipping: 0)
        XCTAssertEqual(lines.count, 1, "one CONNECT-UDP stream for the target")
        XCTAssertEqual(lines.first?[HTTP3RelayLogField.connectProtocol.rawValue], "connect-udp")
        XCTAssertEqual(try echo.events().filter { $0.hasPrefix("DATAGRAM") }.count, 3)
        XCTAssertEqual(proxy.stop(), 0)
        let logged = try proxy.connectionLines()
        XCTAssertTrue(logged.first?.contains(" socks5-udp chain 127.0.0.11:4433 target - up 30 down 30 ") == true, logged.joined(separator: "\n"))
    }

    /// A DNS question over UDP through the association: the answer comes back through the
    /// relay, and the DNS server's log has the question.
    func testDNSOverUDPThroughTheAssociation() throws {
        let dns = try HostileServer(script: "udp_dns.py", host: "127.0.1.4")
        let proxy = try ProxyProcess(["--relay", TestServers.http2RelayAURL.absoluteString, "--relay-protocol", "h3",
                                      "--relay-header", "Proxy-Authorization: \(TestServers.relayToken)", "--relay-cacert", TestServers.caFile])
        let script = """
        import socket
        from dnslib import DNSRecord
        c = socket.create_connection(("\(ProxyProcess.address)", \(proxy.port)), timeout=20)
        c.sendall(b"\\x05\\x01\\x00"); assert c.recv(2) == b"\\x05\\x00"
        c.sendall(b"\\x05\\x03\\x00\\x01\\x00\\x00\\x00\\x00\\x00\\x00")
        reply = c.recv(10)
        relay = (socket.inet_ntoa(reply[4:8]), int.from_bytes(reply[8:10], "big"))
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        u.settimeout(10)
        header = b"\\x00\\x00\\x00\\x01" + socket.inet_aton("127.0.1.4") + (\(dns.port)).to_bytes(2, "big")
        u.sendto(header + DNSRecord.question("origin.test", "A").pack(), relay)
        data, _ = u.recvfrom(2048)
        print(DNSRecord.parse(data[10:]).a.rdata)
        """
        let result = try ProxyProcess.run(HostileServer.python, ["-c", script])
        XCTAssertEqual(result.output, "127.0.0.21\n")
        XCTAssertEqual(try dns.events().filter { $0.hasPrefix("QUESTION") }.map { $0.components(separatedBy: "\t")[3] }, ["origin.test"])
    }

    func testAChainThatCannotCarryUDPSaysSo() throws {
        let proxy = try ProxyProcess(CommandRun.relayArguments)
        let result = try ProxyProcess.run(HostileServer.python, ["-c", Self.udpClient(proxy, target: "127.0.1.3", port: 7)])
        XCTAssertEqual(result.output, "reply 7\n", "SOCKS5: command not supported")
        let logged = try proxy.connectionLines()
        XCTAssertTrue(logged.first?.contains("refused unsupported") == true, logged.joined(separator: "\n"))
        // The library says what is wrong; the command adds the option that changes it.
        XCTAssertTrue(logged.first?.hasSuffix("(no relay chain ends in an HTTP/3 hop to carry UDP); give a chain's last hop --relay-protocol h3") == true,
                      logged.joined(separator: "\n"))
    }
}
