import Foundation
import XCTest
import RelayFetchTestSupport

/// Memory of `relayfetch proxy` per idle proxied connection (issue 26: at most 64 KiB), read
/// from the proxy process's resident size, not from its own counters: 200 SOCKS tunnels
/// through relay A's HTTP/2 front (nghttpx; streams of a few pooled connections) to the origin,
/// opened and then left idle.
final class ProxyIdleMemoryTests: XCTestCase {
    /// Outside the 127.0.1.1 the other proxy tests listen on.
    private static let address = "127.0.1.50"
    // 200, not 1,000: the suite's time budget (the benchmark opens 1,000; old code: 68.6 KiB each over 200)
    private static let connections = 200

    override func setUpWithError() throws {
        try TestServers.ensureRunning()
    }

    /// Opens `count` SOCKS5 CONNECTs to origin.test:443 and sends each a TLS ClientHello's worth
    /// of bytes, so the tunnel has carried data both ways once (its buffers have been used),
    /// then holds them idle until told to let go. Prints "open N" (tunnels the proxy answered
    /// with success within 3 s) once all are tried.
    private func idleClients(port: UInt16, count: Int) -> String {
        """
        import socket, ssl, sys
        ctx = ssl.create_default_context(cafile="\(TestServers.caFile)")
        held, ok = [], 0
        for i in range(\(count)):
            s = socket.create_connection(("\(Self.address)", \(port)), timeout=20)
            s.sendall(b"\\x05\\x01\\x00")
            s.recv(2)
            s.sendall(b"\\x05\\x01\\x00\\x03\\x0borigin.test\\x01\\xbb")
            s.settimeout(3)
            try:
                reply = s.recv(10)
            except OSError:
                reply = b""
            s.settimeout(20)
            if reply[:2] == b"\\x05\\x00":
                ok += 1
                held.append(ctx.wrap_socket(s, server_hostname="origin.test"))
            else:
                held.append(s)
        print("open", ok, flush=True)
        sys.stdin.readline()
        """
    }

    func testAThousandIdleProxiedConnectionsCostAtMost64KiBEach() throws {
        let port = try ProxyProcess.freePort()
        let relay = ["--relay", TestServers.http2RelayAURL.absoluteString, "--relay-protocol", "h2",
                     "--relay-header", "Proxy-Authorization: \(TestServers.relayToken)", "--relay-cacert", TestServers.caFile, "--cacert", TestServers.caFile]
        // In a sanitizer build: AddressSanitizer's quarantine off, the bound scaled (SanitizedChild;
        // with the quarantine, 267 KiB each of freed blocks kept resident).
        let proxy = try ProxyProcess(["--listen", "\(Self.address):\(port)"] + relay, listen: false, environment: SanitizedChild.environment())
        let pid = proxy.process.processIdentifier
        // One tunnel first, so the relay connection, TLS and the loop's own memory are in the baseline.
        let warm = try ProxyCommandTests.curl(["--socks5-hostname", "\(Self.address):\(port)", "https://origin.test/index.html", "-o", "/dev/null"])
        XCTAssertEqual(warm.status, 0, warm.output)
        let baseline = try HeldClients.residentKiB(pid)
        let clients = try HeldClients(script: idleClients(port: port, count: Self.connections))
        defer { clients.release() }
        let printed = clients.line
        let opened = Int(printed.split(separator: " ").last ?? "") ?? 0
        // A few of hundreds of streams set up at once over the pooled HTTP/2 connections time out
        // at hop 1 (a separate fault): the bound is per tunnel that opened, and nearly all must.
        XCTAssertGreaterThanOrEqual(opened, Self.connections * 9 / 10, "too few tunnels opened to measure: \(printed)")
        Thread.sleep(forTimeInterval: 1)
        let held = try HeldClients.residentKiB(pid)
        let perConnection = (held - baseline) / max(opened, 1)
        print("proxy idle memory: \(baseline) KiB -> \(held) KiB for \(opened) tunnels: \(perConnection) KiB each")
        XCTAssertLessThanOrEqual(perConnection, Int(64 * SanitizedChild.scale), "each idle proxied connection costs \(perConnection) KiB (\(baseline) -> \(held) KiB)")
    }
}
