import Foundation
import XCTest
import RelayFetchTestSupport

/// `relayfetch proxy` under strace, serving curl: invariants 2 (no DNS leak) and 3 (disk
/// avoidance) for connections other programs make through it.
extension ProcessLevelPrivacyTests {
    /// The proxy under strace while curl fetches through it by name (over SOCKS5 and HTTP
    /// CONNECT): it dials relay A alone, reads no resolver file, sends nothing to port 53, and
    /// writes no file.
    func testTheProxyDialsOnlyTheFirstRelayAndResolvesNothing() throws {
        let traceFile = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-proxy-trace-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: traceFile) }
        let proxy = try ProxyProcess(CommandRun.relayArguments,
                                     wrapper: ["/usr/bin/strace", "-f", "-qq", "-e", "trace=\(SystemCallTrace.traced)", "-o", traceFile.path])
        let marker = TestServers.marker("proxy-strace")
        let viaSOCKS = try ProxyCommandTests.curl(["--socks5-hostname", proxy.socks, "https://origin.test/index.html?\(marker)", "-o", "/dev/null"])
        XCTAssertEqual(viaSOCKS.status, 0, viaSOCKS.output)
        let viaHTTP = try ProxyCommandTests.curl(["--proxy", "http://\(proxy.socks)", "https://www.origin.test/index.html?\(marker)", "-o", "/dev/null"])
        XCTAssertEqual(viaHTTP.status, 0, viaHTTP.output)
        // SIGTERM to the proxy itself (strace's child): strace ends with it.
        let children = try String(contentsOfFile: "/proc/\(proxy.process.processIdentifier)/task/\(proxy.process.processIdentifier)/children", encoding: .utf8)
        guard let child = Int32(children.split(separator: " ").first ?? "") else { return XCTFail("no traced child: \(children)") }
        kill(child, SIGTERM)
        let deadline = Date().addingTimeInterval(15)
        while proxy.process.isRunning && Date() < deadline { usleep(20_000) }
        let trace = SystemCallTrace(try String(contentsOf: traceFile, encoding: .utf8))
        XCTAssertEqual(trace.externalDials, ProcessLevelPrivacyTests.relayA, "unexpected dials")
        XCTAssertEqual(trace.resolverActivity, [], "a name was resolved")
        XCTAssertTrue(trace.opened(TestServers.caFile), "the trace shows no opens: is it recording?")
        XCTAssertEqual(trace.fileWrites, [], "the proxy wrote to disk")
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0, count: 2).map { $0.first }, ["127.0.0.11", "127.0.0.11"])
    }
}
