import Foundation
import XCTest
@testable import RelayTransport
import RelayFetchTestSupport

/// TLS nested in a tunnel, built by the chain builder against real squid and nginx:
/// TCP(relay) -> TLS(relay) -> CONNECT(origin) -> TLS(origin) -> HTTP/1.1.
final class NestedTLSTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testTLSInsideTheTunnelReachesTheOrigin() throws {
        let loop = EventLoop()
        defer { loop.shutdown() }
        let relay = RelayEndpoint(host: "127.0.0.11", port: 3129, trust: TLSTrust(caFile: TestServers.caFile),
                                  headerFields: [("Proxy-Authorization", TestServers.relayToken)])
        let marker = TestServers.marker("nested")
        let done = expectation(description: "response")
        let collector = Collector()
        var keep: [AnyObject] = []
        loop.execute {
            let builder = RelayChainBuilder(loop: loop)
            keep.append(builder)
            builder.build(hops: [relay], to: TunnelTarget(host: "origin.test", port: 443), connectTimeout: 5) { result in
                guard case .success(let (tunnel, reports)) = result else { XCTFail("\(result)"); done.fulfill(); return }
                XCTAssertEqual(reports.map(\.hop.index), [1])
                do {
                    let context = try TLSContext(trust: TLSTrust(caFile: TestServers.caFile))
                    let tls = try TLSLayer(over: tunnel, context: context, serverName: "origin.test", alpn: ["http/1.1"],
                                           hop: HopDescription(index: 0, endpoint: "origin.test:443", protocolName: "HTTPS"))
                    keep.append(tls)
                    tls.delegate = collector
                    tls.connect { outcome in
                        guard case .success = outcome else { XCTFail("\(outcome)"); done.fulfill(); return }
                        XCTAssertEqual(tls.negotiatedALPN, "http/1.1")
                        tls.send(Array("GET /index.html?\(marker) HTTP/1.1\r\nHost: origin.test\r\nConnection: close\r\n\r\n".utf8))
                    }
                    Self.poll(loop, until: { collector.ended || collector.error != nil }) { done.fulfill() }
                } catch {
                    XCTFail("\(error)")
                    done.fulfill()
                }
            }
        }
        wait(for: [done], timeout: 10)
        let response = String(decoding: collector.received, as: UTF8.self)
        XCTAssertTrue(response.hasPrefix("HTTP/1.1 200"), response)
        XCTAssertTrue(response.contains("relayfetch sample site"))
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first?.first, "127.0.0.11")
    }

    func testOriginCertificateFromAnUntrustedCAFailsTheHandshake() throws {
        let loop = EventLoop()
        defer { loop.shutdown() }
        let done = expectation(description: "handshake")
        var failure: RelayError?
        var keep: [AnyObject] = []
        loop.execute {
            let tcp = TCPLayer(loop: loop, host: "127.0.0.21", port: 443, hop: HopDescription(index: 1, endpoint: "127.0.0.21:443", protocolName: "HTTPS"))
            tcp.connect { _ in
                do {
                    let tls = try TLSLayer(over: tcp, context: TLSContext(trust: .system), serverName: "origin.test", alpn: [], hop: tcp.hop)
                    keep.append(tls)
                    tls.connect { outcome in
                        if case .failure(let error) = outcome { failure = error }
                        done.fulfill()
                    }
                } catch { XCTFail("\(error)"); done.fulfill() }
            }
            keep.append(tcp)
        }
        wait(for: [done], timeout: 10)
        guard case .tls(let reason) = failure?.cause else { return XCTFail("expected a TLS failure, got \(String(describing: failure))") }
        XCTAssertTrue(reason.contains("certificate verify failed"), reason)
    }

    private static func poll(_ loop: EventLoop, until condition: @escaping () -> Bool, then: @escaping () -> Void) {
        if condition() { then(); return }
        loop.schedule(after: 0.02) { poll(loop, until: condition, then: then) }
    }
}
