import Foundation
import XCTest
import RelayFetchTestSupport

/// Hostile local clients of `relayfetch proxy`: garbage, a handshake sent a byte a second, and
/// ten thousand connections left half-open. Each is cut off or pushed out, memory stays
/// bounded, and a well-behaved client is served meanwhile.
final class ProxyHostileClientTests: XCTestCase {
    override func setUpWithError() throws {
        try TestServers.ensureRunning()
        try SystemCallTrace.requireExecutableAndStrace()
    }

    private func assertServed(_ proxy: ProxyProcess, _ label: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let marker = TestServers.marker(label)
        let result = try ProxyCommandTests.curl(["--socks5-hostname", proxy.socks, "https://origin.test/index.html?\(marker)", "-o", "/dev/null"])
        XCTAssertEqual(result.status, 0, result.output, file: file, line: line)
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).map { $0.first }, ["127.0.0.11"],
                       file: file, line: line)
    }

    func testGarbageAndAByteASecondHandshakeAreCutOffWhileOthersAreServed() throws {
        let proxy = try ProxyProcess(CommandRun.relayArguments + ["--handshake-timeout", "3"])
        let script = """
        import os, socket, time, threading
        results = {}
        def garbage(kind, payload):
            s = socket.create_connection(("\(ProxyProcess.address)", \(proxy.port)), timeout=10)
            try:
                s.sendall(payload)
                results[kind] = s.recv(100)
            except OSError as error:
                results[kind] = type(error).__name__
        def slow():
            s = socket.create_connection(("\(ProxyProcess.address)", \(proxy.port)), timeout=30)
            start = time.time()
            try:
                for byte in b"\\x05\\x01\\x00\\x05\\x01\\x00\\x03\\x0borigin.test\\x01\\xbb":
                    s.send(bytes([byte]))
                    time.sleep(1)
                    s.setblocking(False)
                    try:
                        if s.recv(100) == b"":
                            break
                    except BlockingIOError:
                        pass
                    except OSError:
                        break
                    s.setblocking(True)
            except OSError:
                pass
            results["slow"] = round(time.time() - start)
        # A head one byte past the limit, all of it read before the proxy answers 431 and closes.
        threads = [threading.Thread(target=garbage, args=("noise", b"\\x00" + os.urandom(4000))),
                   threading.Thread(target=garbage, args=("http", b"GET " + b"a" * 16381)),
                   threading.Thread(target=slow)]
        for t in threads: t.start()
        for t in threads: t.join()
        print(results["noise"], results["http"][:12], results["slow"])
        """
        let client = Process()
        client.executableURL = URL(fileURLWithPath: HostileServer.python)
        client.arguments = ["-c", script]
        let output = Pipe()
        client.standardOutput = output
        client.standardError = output
        try client.run()
        Thread.sleep(forTimeInterval: 1)
        try assertServed(proxy, "proxy-hostile-slow")
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let fields = printed.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ")
        XCTAssertGreaterThanOrEqual(fields.count, 3, printed)
        XCTAssertTrue(["b''", "ConnectionResetError", "BrokenPipeError"].contains(fields.first ?? ""), "noise not closed at once: \(printed)")
        XCTAssertTrue(printed.contains("b'HTTP/1.1 431"), "an endless head gets 431: \(printed)")
        XCTAssertTrue((3...5).contains(Int(fields.last ?? "") ?? 0), "the slow handshake was cut after \(fields.last ?? "?") s, not at the 3 s deadline")
        try assertServed(proxy, "proxy-hostile-after")
    }

    func testTenThousandHalfOpenConnectionsCostBoundedMemory() throws {
        // In a sanitizer build: AddressSanitizer's quarantine off, the bound scaled (SanitizedChild;
        // with the quarantine, 433 MiB of freed blocks kept resident).
        let proxy = try ProxyProcess(CommandRun.relayArguments, environment: SanitizedChild.environment())
        let pid = proxy.process.processIdentifier
        try assertServed(proxy, "proxy-flood-before")
        let baseline = try HeldClients.residentKiB(pid)
        let script = """
        import socket, sys, time
        held = []
        for i in range(10000):
            s = socket.socket()
            s.setblocking(True)
            s.settimeout(5)
            try:
                s.connect(("\(ProxyProcess.address)", \(proxy.port)))
                s.send(b"\\x05")
            except OSError:
                pass
            held.append(s)
        print("held", len(held), flush=True)
        sys.stdin.readline()
        """
        let flood = try HeldClients(script: script)
        defer { flood.release() }
        XCTAssertEqual(flood.line, "held 10000")
        Thread.sleep(forTimeInterval: 0.5)
        let flooded = try HeldClients.residentKiB(pid)
        XCTAssertLessThan(flooded - baseline, Int(32 * 1024 * SanitizedChild.scale), "memory grew from \(baseline) KiB to \(flooded) KiB under 10,000 half-open connections")
        let open = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
        XCTAssertLessThan(open, 1200, "the proxy holds \(open) descriptors: half-open clients are not pushed out")
        try assertServed(proxy, "proxy-flood-during")
    }
}
