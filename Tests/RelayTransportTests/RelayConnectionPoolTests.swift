import Foundation
import XCTest
@testable import RelayTransport
import RelayFetchTestSupport

/// The HTTP/2 pool against nghttpx: tunnels reuse an open connection, and a connection left
/// without tunnels closes after the idle timeout (the next tunnel opens a new one).
final class RelayConnectionPoolTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testReuseWhileOpenAndCloseWhenIdle() throws {
        let loop = EventLoop()
        defer { loop.shutdown() }
        let relay = RelayEndpoint(host: "127.0.0.11", port: 4433, trust: TLSTrust(caFile: TestServers.caFile),
                                  headerFields: [("Proxy-Authorization", TestServers.relayToken)],
                                  relayProtocol: .http2)
        var builder: RelayChainBuilder!
        loop.execute { builder = RelayChainBuilder(loop: loop, idleTimeout: 0.3) }

        func tunnel() throws -> TransportLayer {
            let done = expectation(description: "tunnel")
            var outcome: Result<(TransportLayer, [HopReport]), RelayError>?
            loop.execute {
                builder.build(hops: [relay], to: TunnelTarget(host: "origin.test", port: 443), connectTimeout: 5) {
                    outcome = $0
                    done.fulfill()
                }
            }
            wait(for: [done], timeout: 10)
            return try XCTUnwrap(try outcome?.get().0)
        }
        // The kernel's view of this process's connections to the relay, not the builder's count.
        let earlier = Set(try TestServers.ownSockets(.tcp, to: "127.0.0.11:4433"))
        func connections() throws -> Set<String> { Set(try TestServers.ownSockets(.tcp, to: "127.0.0.11:4433")).subtracting(earlier) }

        let first = try tunnel()
        let second = try tunnel()
        let shared = try connections()
        XCTAssertEqual(shared.count, 1, "the second tunnel shares the first one's connection: \(shared)")
        loop.execute { first.close(); second.close() }
        Thread.sleep(forTimeInterval: 0.1)
        let third = try tunnel()
        XCTAssertEqual(try connections(), shared, "still within the idle timeout: reused")
        loop.execute { third.close() }
        Thread.sleep(forTimeInterval: 0.8)
        XCTAssertEqual(try connections(), [], "after the idle timeout the connection was closed")
        let fourth = try tunnel()
        let fresh = try connections()
        XCTAssertEqual(fresh.count, 1)
        XCTAssertTrue(fresh.isDisjoint(with: shared), "the fourth tunnel opened a new connection")
        loop.execute { fourth.close(); builder.closeAll() }
    }
}
