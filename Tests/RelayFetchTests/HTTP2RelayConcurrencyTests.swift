import Foundation
import XCTest
import RelayFetch
import RelayFetchTestSupport

/// Twenty origins at once through one HTTP/2 relay (nghttpx, relay A): each origin gets one
/// tunnel and keeps it. libcurl counted its per-host limit (six) by the loopback name it dials,
/// which was the same for every relayed origin: twenty origins shared six connections, and each
/// request closed another origin's tunnel to open its own (about 40 ms each on loopback).
final class HTTP2RelayConcurrencyTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testTwentyOriginsInFlightKeepOneTunnelEach() async throws {
        let marker = TestServers.marker("h2-20")
        let hosts = (1...20).map { "h\($0).origin.test" }
        let rounds = 3
        let relayBefore = try TestServers.allLogLines(TestServers.http2RelayALog).count
        let originBefore = try TestServers.allLogLines(TestServers.originALog).count
        let session = try Session(configuration: TestServers.configuration(hops: [
            TestServers.relayHop(url: TestServers.http2RelayAURL, relayProtocol: .http2)]))
        defer { session.invalidate() }
        for round in 1...rounds {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for host in hosts {
                    group.addTask {
                        let (_, response) = try await session.data(from: URL(string: "https://\(host)/index.html?\(marker)-\(round)")!)
                        return response.statusCode
                    }
                }
                for try await status in group { XCTAssertEqual(status, 200) }
            }
        }
        // The origin's log: every request arrived, through the relay.
        let served = Array(try TestServers.allLogLines(TestServers.originALog).dropFirst(originBefore))
            .filter { $0[OriginLogField.uri.rawValue].contains(marker) }
        XCTAssertEqual(served.count, hosts.count * rounds, "the origin's log")
        // The relay's log: one CONNECT per origin for all three rounds, not one per request.
        let connects = Array(try TestServers.allLogLines(TestServers.http2RelayALog).dropFirst(relayBefore))
            .filter { $0.count > 4 && $0[3] == "CONNECT" && hosts.contains(String($0[4].split(separator: ":").first ?? "")) }
        XCTAssertFalse(connects.isEmpty, "the relay's log shows the tunnels")
        var perHost: [String: Int] = [:]
        for line in connects { perHost[String(line[4].split(separator: ":").first ?? ""), default: 0] += 1 }
        XCTAssertEqual(perHost, Dictionary(uniqueKeysWithValues: hosts.map { ($0, 1) }), "one tunnel per origin, kept for every round")
        XCTAssertTrue(connects.allSatisfy { $0[2] == "h2" }, "CONNECTs over HTTP/2")
    }
}
