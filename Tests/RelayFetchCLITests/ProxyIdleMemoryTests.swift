import Foundation
import XCTest
import RelayFetchTestSupport

/// Memory of `relayfetch proxy` per idle proxied connection (issue 26: at most 64 KiB), read
/// from the proxy process's resident size, not from its own counters: 1,000 SOCKS tunnels
/// through relay A's HTTP/2 front (nghttpx: 256 streams per connection, so a few pooled
/// connections) to the origin, opened at once and then left idle.
final class ProxyIdleMemoryTests: XCTestCase {
    /// Outside the 127.0.1.1 the other proxy tests listen on.
    private static let address = "127.0.1.50"
    private static let connections = 1_000

    override func setUpWithError() throws {
        try TestServers.ensureRunning()
    }

    /// Opens `count` SOCKS5 CONNECTs to the origin at `target` (origin.test:PORT) at once (each
    /// greeting and request sent before any answer is read), then sends each tunnel that opened
    /// a greeting the size of a TLS ClientHello and reads the origin's 4 KiB answer, so it has
    /// carried data both ways once (its buffers have been used), and holds them idle until told
    /// to let go. Prints "open N answered M" (tunnels the proxy opened within 20 s, and answers
    /// that came back) once all are tried.
    private func idleClients(port: UInt16, target: UInt16, count: Int) -> String {
        """
        import socket, struct, sys, time
        request = b"\\x05\\x01\\x00" b"\\x05\\x01\\x00\\x03\\x0borigin.test" + struct.pack(">H", \(target))
        asked = []
        for i in range(\(count)):
            s = socket.create_connection(("\(Self.address)", \(port)), timeout=20)
            s.sendall(request)
            asked.append(s)
        def read(s, count, deadline):
            data = b""
            try:
                while len(data) < count:
                    s.settimeout(max(0.1, deadline - time.time()))
                    chunk = s.recv(count - len(data))
                    if not chunk:
                        break
                    data += chunk
            except OSError:
                pass
            return data
        deadline = time.time() + 20
        opened = [(i, s) for i, s in enumerate(asked) if read(s, 12, deadline)[2:4] == b"\\x05\\x00"]
        for i, s in opened:
            s.sendall(b"HELLO %d 4096 %s\\n" % (i, b"x" * 500))
        deadline = time.time() + 20
        answered = sum(1 for i, s in opened if read(s, 4096, deadline).startswith(b"OK %d " % i))
        print("open", len(opened), "answered", answered, flush=True)
        sys.stdin.readline()
        """
    }

    func testAThousandIdleProxiedConnectionsCostAtMost64KiBEach() throws {
        // Our own origin: nginx's 512 worker connections would not hold a thousand tunnels.
        let origin = try HostileServer(script: "held_origin.py")
        defer { origin.stop() }
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
        let started = Date()
        let clients = try HeldClients(script: idleClients(port: port, target: origin.port, count: Self.connections))
        defer { clients.release() }
        let printed = clients.line
        print("proxy idle clients: \(printed) after \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
        let words = printed.split(separator: " ")
        let opened = words.count == 4 ? Int(words[1]) ?? 0 : 0
        // More than one connection's worth of streams (nghttpx: 256): every tunnel opens, and the
        // origin's log shows each greeting once, all from relay A.
        XCTAssertEqual(printed, "open \(Self.connections) answered \(Self.connections)")
        let hellos = try origin.events().map { $0.components(separatedBy: "\t") }.filter { $0.first == "hello" }
        XCTAssertEqual(Set(hellos.map { $0[1] }).count, Self.connections)
        XCTAssertEqual(Set(hellos.map { $0[2] }), ["127.0.0.11"])
        Thread.sleep(forTimeInterval: 1)
        let held = try HeldClients.residentKiB(pid)
        let perConnection = (held - baseline) / max(opened, 1)
        print("proxy idle memory: \(baseline) KiB -> \(held) KiB for \(opened) tunnels: \(perConnection) KiB each")
        XCTAssertLessThanOrEqual(perConnection, Int(64 * SanitizedChild.scale), "each idle proxied connection costs \(perConnection) KiB (\(baseline) -> \(held) KiB)")
    }
}
