import Foundation
import XCTest
@testable import RelayTransport
import RelayFetchTestSupport

/// HTTP/3 relay connections opened and closed by the hundred in one process, against a relay
/// of the test's own (`HTTP3RelayInstance` on 127.0.0.147, so its log holds this test's tunnels
/// only): each carries a tunnel and a request to the origin, and once the pool has closed it, it
/// is gone with its QUIC connection (weak references to both are nil). Between them come as many
/// that fail in their TLS setup (a CA file that is missing), as a relay configured wrong fails
/// every tunnel of a long crawl. The heap bytes the process holds (`ProcessMemory.heapBytes`)
/// stay flat across them all: a QUIC connection whose TLS setup failed used to keep its 64 KiB
/// packet buffer for good (12.5 MiB over 200), which the resident size never showed, the
/// buffer's pages being untouched.
final class HTTP3ConnectionReleaseTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testTwoHundredConnectionsOpenedAndClosedLeaveTheHeapFlat() throws {
        let rounds = 200, warmUp = 5
        let relayInstance = try HTTP3RelayInstance(host: "127.0.0.147")
        var relay = HTTP3RelayTests.relay(token: TestServers.relayBToken, host: relayInstance.host)
        relay.port = relayInstance.port
        var misconfigured = relay
        misconfigured.trust = TLSTrust(caFile: FileManager.default.temporaryDirectory.appendingPathComponent("no-such-ca-\(UUID().uuidString).pem").path)
        let session = HTTP3TestChain()
        defer { session.end() }
        // The first rounds fill what stays for the process (GnuTLS's and OpenSSL's tables, the loop's).
        for round in 0..<warmUp { try openUseAndClose(session, relay: relay, round: round) }
        let before = ProcessMemory.heapBytes
        for round in warmUp..<warmUp + rounds {
            try openUseAndClose(session, relay: relay, round: round)
            let failed = session.tunnel(through: [misconfigured])
            guard case .failure(let error) = failed, case .tls(let reason) = error.cause, reason.contains("cannot load CA") else {
                return XCTFail("round \(round): a missing CA file must fail the TLS setup, got \(failed)")
            }
        }
        let growth = ProcessMemory.heapBytes - before
        print("\(rounds) HTTP/3 relay connections opened and closed, \(rounds) failed TLS setups: heap grew \(growth >> 10) KiB")
        XCTAssertLessThan(growth, 2 << 20, "the heap grew by \(growth >> 10) KiB over \(rounds) connections")
        XCTAssertEqual(try TestServers.ownSockets(.udp, to: "\(relayInstance.host):\(relayInstance.port)"), [],
                       "a closed connection left its socket open")
        // The relay's log: every tunnel it carried, all answered 200.
        let tunnels = try relayInstance.lines().with(HTTP3RelayLogField.method, "CONNECT").with(HTTP3RelayLogField.authority, "origin.test:443")
        XCTAssertEqual(tunnels.values(HTTP3RelayLogField.status), Array(repeating: "200", count: warmUp + rounds), "the relay's log")
    }

    /// A tunnel over a new connection to `relay`, a GET through it, the tunnel closed and the
    /// pool closed: the connection and its QUIC connection are released.
    private func openUseAndClose(_ session: HTTP3TestChain, relay: RelayEndpoint, round: Int) throws {
        let released = ReleaseWatch()
        try use(session, relay: relay, watch: released, round: round)
        session.closeAll()
        XCTAssertTrue(released.waitUntilReleased(), "round \(round): the closed connection is still alive (\(released))")
    }

    /// Everything that holds the tunnel stays in here, so it is all let go on return.
    private func use(_ session: HTTP3TestChain, relay: RelayEndpoint, watch: ReleaseWatch, round: Int) throws {
        let (tunnel, reports) = try session.tunnel(through: [relay]).get()
        XCTAssertEqual(reports.first?.reusedConnection, false, "round \(round): the pool closed the last connection")
        guard let stream = tunnel as? HTTP3ConnectStream else { throw TestServerError(description: "not an HTTP/3 tunnel: \(tunnel)") }
        watch.connection = stream.connection
        watch.quic = stream.connection.quic
        let response = session.fetch(over: tunnel, path: "/index.html?release-\(round)")
        XCTAssertTrue(response.contains("relayfetch sample site"), "round \(round): \(response.prefix(300))")
        session.loop.execute { tunnel.close() }
    }
}

/// Weak references to a relay connection and its QUIC connection, to see them go.
private final class ReleaseWatch: CustomStringConvertible {
    weak var connection: HTTP3RelayConnection?
    weak var quic: AnyObject?

    /// Waits up to 2 s (the last reference may be let go on the loop) for both to be gone.
    func waitUntilReleased() -> Bool {
        let deadline = Date().addingTimeInterval(2)
        while connection != nil || quic != nil {
            if Date() > deadline { return false }
            usleep(1000)
        }
        return true
    }

    var description: String { "connection \(connection == nil ? "released" : "alive"), QUIC \(quic == nil ? "released" : "alive")" }
}
