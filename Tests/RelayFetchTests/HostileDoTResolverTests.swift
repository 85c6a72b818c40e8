import Foundation
import XCTest
import RelayFetch
import RelayFetchTestSupport

/// A hostile DNS-over-TLS resolver (Samples/servers/hostile/dot_flood_resolver.py on 127.0.0.164,
/// verified as origin.test) that sends 2 MiB of empty frames before each answer, asked for relay
/// A's name under `requireEncryptedNameResolution`. Each empty frame was removed from the front
/// of the receive buffer, moving the rest of up to 256 KiB delivered at once for every 2 bytes:
/// seconds of the event loop thread per delivery, a thread every tunnel of the session shares.
/// The frames are now skipped in one pass, and the fetch goes through at once.
final class HostileDoTResolverTests: XCTestCase {
    func testFloodOfEmptyFramesDoesNotHoldTheEventLoop() async throws {
        let resolver = try HostileServer(script: "dot_flood_resolver.py", host: "127.0.0.164", arguments: ["--flood-bytes", String(2 << 20)])
        defer { resolver.stop() }
        var configuration = TestServers.configuration(hops: [TestServers.relayHop(url: URL(string: "https://relay.test:3129")!)])
        let context = PrivacyContext()
        context.requireEncryptedNameResolution(true, fallbackResolver: .tls("origin.test:\(resolver.port)", serverAddresses: [resolver.host]))
        configuration.privacyContext = context
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        let marker = TestServers.marker("dot-flood")
        let started = Date()
        let (_, response) = try await session.data(from: URL(string: "https://origin.test/index.html?\(marker)")!)
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        XCTAssertEqual(try TestServers.logLines(TestServers.originALog, containing: marker).count, 1)
        let events = try resolver.events()
        XCTAssertTrue(events.contains("QUERY\trelay.test\t1"), "\(events)")
        XCTAssertTrue(events.contains("FLOODED\t\(2 << 20)"), "the resolver flooded before its answer")
    }
}
