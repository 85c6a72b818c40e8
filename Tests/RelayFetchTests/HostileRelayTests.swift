import Foundation
import XCTest
import RelayFetch
import RelayFetchTestSupport

/// Hostile relays of our own (Samples/servers/hostile/): protocol errors fail the hop at once,
/// naming it and the cause, and nothing ever goes direct.
final class HostileRelayTests: XCTestCase {
    /// Each way of breaking HTTP/2 fails well before the 15 s connect timeout.
    func testHTTP2RelayProtocolErrorsFailAtOnceNamingTheHop() async throws {
        for mode in ["oversized-data", "bad-settings", "garbage"] {
            let relay = try HostileServer(script: "h2_relay.py", host: "127.0.0.11", arguments: ["--mode", mode])
            defer { relay.stop() }
            let hop = TestServers.relayHop(url: URL(string: "https://127.0.0.11:\(relay.port)")!, relayProtocol: .http2)
            let session = try Session(configuration: TestServers.configuration(hops: [hop], connectTimeout: 15))
            defer { session.invalidate() }
            let started = Date()
            let failure = await session.fetchError(URL(string: "https://127.0.0.21/index.html")!)
            let error = try XCTUnwrap(failure, "\(mode): a broken HTTP/2 relay carried a request")
            XCTAssertEqual(error.relayError?.hop.index, 1, "\(mode): \(error)")
            XCTAssertTrue(error.description.contains("hop 1 (127.0.0.11:\(relay.port)"), "\(mode): \(error)")
            XCTAssertTrue(error.description.contains("HTTP/2 connection error: "), "\(mode): \(error)")
            XCTAssertLessThan(Date().timeIntervalSince(started), 5, "\(mode) was noticed only by a timeout")
            XCTAssertEqual(try relay.events().filter { $0.hasPrefix("SENT") }, ["SENT\t\(mode)"])
        }
    }

    /// A relay that answers SETTINGS and then nothing: the connect timeout ends it, named.
    func testSilentHTTP2RelayHitsTheConnectTimeout() async throws {
        let relay = try HostileServer(script: "h2_relay.py", host: "127.0.0.11", arguments: ["--mode", "stall"])
        defer { relay.stop() }
        let hop = TestServers.relayHop(url: URL(string: "https://127.0.0.11:\(relay.port)")!, relayProtocol: .http2)
        let session = try Session(configuration: TestServers.configuration(hops: [hop], connectTimeout: 1))
        defer { session.invalidate() }
        let failure = await session.fetchError(URL(string: "https://127.0.0.21/index.html")!)
        let error = try XCTUnwrap(failure, "a silent relay carried a request")
        XCTAssertEqual(error.relayError?.cause, .timeout, "\(error)")
        XCTAssertEqual(error.relayError?.hop.index, 1, "\(error)")
        XCTAssertEqual(try relay.events().filter { $0.hasPrefix("CONNECTION") }.count, 1)
    }
}

/// A hostile HTTP/1.1 relay that opens the tunnel to the real nginx origin (127.0.0.21) and then
/// cuts, stalls or resets it mid-body. The origin serves 1 MiB (/big).
final class HostileTunnelTests: XCTestCase {
    private func fetchThrough(_ mode: String, bytes: Int, idleTimeout: Double = 30) async throws -> (FetchError?, HostileServer) {
        let relay = try HostileServer(script: "h1_relay.py", host: "127.0.0.11", arguments: ["--mode", mode, "--bytes", String(bytes)])
        let hop = TestServers.relayHop(url: URL(string: "https://127.0.0.11:\(relay.port)")!, relayProtocol: .http1)
        var configuration = TestServers.configuration(hops: [hop])
        configuration.idleTimeout = idleTimeout
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        let error = await session.fetchError(URL(string: "https://origin.test/big")!)
        XCTAssertNotNil(error, "\(mode): a body through a tunnel that was cut was accepted")
        return (error, relay)
    }

    /// The relay's TLS close_notify mid-body used to recurse without end (a segfault).
    func testCloseNotifyMidBodyIsATruncationNamingTheHop() async throws {
        for _ in 0..<3 {
            let (error, relay) = try await fetchThrough("close-notify-after", bytes: 50_000, idleTimeout: 5)
            defer { relay.stop() }
            XCTAssertEqual(error?.relayError?.hop.index, 1, "\(String(describing: error))")
            XCTAssertTrue(error?.description.contains("closed the tunnel before the response was complete") == true, "\(String(describing: error))")
            XCTAssertEqual(try relay.events().filter { $0.hasPrefix("MISBEHAVED") }.count, 1)
        }
    }

    func testResetMidBodyNamesTheHop() async throws {
        let (error, relay) = try await fetchThrough("reset-after", bytes: 50_000, idleTimeout: 5)
        defer { relay.stop() }
        XCTAssertEqual(error?.relayError?.hop.index, 1, "\(String(describing: error))")
        XCTAssertEqual(try relay.events().filter { $0.hasPrefix("MISBEHAVED") }.count, 1)
    }

    func testRelayStallingMidBodyHitsTheIdleTimeout() async throws {
        let started = Date()
        let (error, relay) = try await fetchThrough("stall-after", bytes: 50_000, idleTimeout: 1)
        defer { relay.stop() }
        XCTAssertTrue(error?.description.contains("no data for 1 s from origin.test:443 through hop 1 (127.0.0.11:\(relay.port))") == true,
                      "\(String(describing: error))")
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
    }
}

/// An idle timeout through HTTP/2 relays says who stalled: each hop is asked for a PING.
final class StallDiagnosisTests: XCTestCase {
    /// nghttpx (relay A, HTTP/2) in front of squid answers PINGs while the origin is silent.
    func testSilentOriginBehindAnHTTP2RelayIsNamedAsTheOneThatStalled() async throws {
        let origin = try HostileServer(script: "origin.py")
        defer { origin.stop() }
        let hop = TestServers.relayHop(url: TestServers.http2RelayAURL, relayProtocol: .http2)
        var configuration = TestServers.configuration(hops: [hop])
        configuration.idleTimeout = 1
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        let failure = await session.fetchError(URL(string: "https://origin.test:\(origin.port)/unlength-stall/100")!)
        let error = try XCTUnwrap(failure, "a stalled response completed")
        XCTAssertTrue(error.description.contains("most likely the origin stalled: every relay answered an HTTP/2 PING"), "\(error)")
        XCTAssertEqual(try origin.events().filter { $0.contains("/unlength-stall/") }.count, 1)
    }

    /// A relay that freezes mid-body (no data, no PING answer) is named as the one that stalled.
    func testFrozenHTTP2RelayIsNamedAsTheOneThatStalled() async throws {
        let relay = try HostileServer(script: "h2_relay.py", host: "127.0.0.11",
                                      arguments: ["--mode", "freeze-after", "--bytes", "50000", "--target", "127.0.0.21:443"])
        defer { relay.stop() }
        let hop = TestServers.relayHop(url: URL(string: "https://127.0.0.11:\(relay.port)")!, relayProtocol: .http2)
        var configuration = TestServers.configuration(hops: [hop])
        configuration.idleTimeout = 1
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        let failure = await session.fetchError(URL(string: "https://origin.test/big")!)
        let error = try XCTUnwrap(failure, "a body came through a frozen relay")
        XCTAssertTrue(error.description.contains("hop 1 (127.0.0.11:\(relay.port)) stalled: it did not answer an HTTP/2 PING"), "\(error)")
        XCTAssertEqual(try relay.events().filter { $0.hasPrefix("SENT") }.count, 1, "the relay never froze: \(String(describing: try? relay.events()))")
    }
}

/// In a chain, the hop whose connection was cut is the one named, not the last hop.
final class ChainCutTests: XCTestCase {
    func testFirstHopClosingWithoutCloseNotifyIsNamedInATwoHopChain() async throws {
        let relay = try HostileServer(script: "h1_relay.py", host: "127.0.0.11", arguments: ["--mode", "fin-after", "--bytes", "60000"])
        defer { relay.stop() }
        let first = TestServers.relayHop(url: URL(string: "https://127.0.0.11:\(relay.port)")!, relayProtocol: .http1)
        let second = TestServers.relayHop(token: TestServers.relayBToken, url: TestServers.relayBURL, relayProtocol: .http1)
        var configuration = TestServers.configuration(hops: [first, second])
        configuration.idleTimeout = 5
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        let failure = await session.fetchError(URL(string: "https://origin.test/big")!)
        let error = try XCTUnwrap(failure, "a body cut by the first hop was accepted")
        XCTAssertEqual(error.relayError?.hop.index, 1, "\(error)")
        // We read the end first (no close_notify) or write into it first (broken pipe).
        XCTAssertTrue(error.description.contains("without a TLS close_notify") || error.description.contains("connection lost"), "\(error)")
        XCTAssertEqual(try relay.events().filter { $0.hasPrefix("CONNECT\t127.0.0.12:3129") }.count, 1, "hop 1 carried the tunnel to hop 2")
    }
}

/// Transfers through a relay that cuts its tunnels all learn who cut them. On libcurl's own
/// proxy route each exchange has a tunnel of its own (HTTP/1.1 to the origin: HTTP/2 streams
/// multiplexed inside that tunnel stalled, HTTP1RelayPageLoadTests).
final class SharedTunnelCutTests: XCTestCase {
    func testEveryStreamOnACutTunnelNamesTheHop() async throws {
        let relay = try HostileServer(script: "h1_relay.py", host: "127.0.0.11", arguments: ["--mode", "close-notify-after", "--bytes", "200000"])
        defer { relay.stop() }
        let hop = TestServers.relayHop(url: URL(string: "https://127.0.0.11:\(relay.port)")!, relayProtocol: .http1)
        var configuration = TestServers.configuration(hops: [hop])
        configuration.idleTimeout = 5
        let session = try Session(configuration: configuration)
        defer { session.invalidate() }
        // One small exchange first: its tunnel stays open for one of the three to reuse.
        _ = try await session.data(from: URL(string: "https://origin.test/index.html")!)
        let errors = await withTaskGroup(of: String.self) { group in
            for index in 0..<3 {
                group.addTask {
                    do {
                        let (body, _) = try await session.data(from: URL(string: "https://origin.test/big?stream=\(index)")!)
                        return "accepted \(body.count) bytes"
                    } catch let error as FetchError {
                        return error.relayError.map { "hop \($0.hop.index)" } ?? "no hop: \(error)"
                    } catch {
                        return "\(error)"
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertGreaterThanOrEqual(try relay.events().filter { $0.hasPrefix("CONNECT") }.count, 3,
                                    "one tunnel per exchange at a time (the relay's log)")
        XCTAssertEqual(errors, ["hop 1", "hop 1", "hop 1"])
    }
}
