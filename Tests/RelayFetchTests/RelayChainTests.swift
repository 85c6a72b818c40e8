import Foundation
import Locking
import XCTest
import RelayFetch
import RelayTransport
import RelayFetchTestSupport

/// Two- and three-hop chains through real relays: nghttpx (HTTP/2 CONNECT) in front of squid on
/// A (127.0.0.11) and B (127.0.0.12). Who sees what, header scope, and failures per hop.
final class RelayChainTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    private var hopA: ProxyConfiguration.RelayHop { TestServers.relayHop(url: TestServers.http2RelayAURL, relayProtocol: .http2) }
    private var hopB: ProxyConfiguration.RelayHop {
        TestServers.relayHop(token: TestServers.relayBToken, url: TestServers.http2RelayBURL, relayProtocol: .http2)
    }

    func testTwoHTTP2HopsEachSeeOnlyTheirNeighbours() async throws {
        // A second origin on a port of its own: "origin.test:<port>" appears in no other test's
        // traffic, so the relays' shared logs can be searched for it whatever else runs.
        let uniqueOrigin = try HostileServer(script: "redirecting_origin.py")
        defer { uniqueOrigin.stop() }
        let uniqueAuthority = "origin.test:\(uniqueOrigin.port)"
        let marker = TestServers.marker("chain")
        let before = (a: try TestServers.allLogLines(TestServers.http2RelayALog).count, b: try TestServers.allLogLines(TestServers.http2RelayBLog).count,
                      squidA: try TestServers.allLogLines(TestServers.relayLog).count,
                      squidAToB: try TestServers.logLines(TestServers.relayLog, containing: "\t127.0.0.12:4433\t").count)
        let earlier = Set(try TestServers.ownSockets(.tcp, to: "127.0.0.11:4433"))
        let session = try Session(configuration: TestServers.configuration(hops: [hopA, hopB]))
        let (body, response) = try await session.data(from: URL(string: "https://origin.test/echo-headers?\(marker)")!)
        let (_, unique) = try await session.data(from: URL(string: "https://\(uniqueAuthority)/page.html?\(marker)")!)
        let toA = Set(try TestServers.ownSockets(.tcp, to: "127.0.0.11:4433")).subtracting(earlier)
        session.invalidate()  // the relays log tunnels when they close

        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(unique.statusCode, 200)
        XCTAssertEqual(response.relayHops, ["127.0.0.11:4433", "127.0.0.12:4433"])
        XCTAssertEqual(toA.count, 1, "the kernel: one connection to A")
        // The origin sees B only, and neither hop's token.
        let origin = try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0)
        XCTAssertEqual(origin.first?[OriginLogField.remoteAddress.rawValue], "127.0.0.12")
        XCTAssertEqual(origin.first?[OriginLogField.proxyAuthorization.rawValue], "-")
        XCTAssertFalse(String(decoding: body, as: UTF8.self).contains("Bearer"), "the origin saw a hop's token")
        XCTAssertEqual(try uniqueOrigin.events(), ["GET\t/page.html?\(marker)"])

        // A: the client connected over HTTP/2 and asked for B; A never learns the origins' names;
        // only A's token.
        let linesA = try TestServers.waitForLogLines(TestServers.http2RelayALog, containing: "", skipping: before.a)
        XCTAssertFalse(linesA.with(HTTP2RelayLogField.path, "127.0.0.12:4433").isEmpty, "\(linesA)")
        XCTAssertEqual(Set(linesA.with(HTTP2RelayLogField.path, "127.0.0.12:4433").values(HTTP2RelayLogField.alpn)), ["h2"],
                       "A's log: the client spoke HTTP/2")
        let squidAToB = try TestServers.waitForLogLines(TestServers.relayLog, containing: "\t127.0.0.12:4433\t", skipping: before.squidAToB)
        XCTAssertFalse(squidAToB.isEmpty, "A's squid logged the tunnel to B, so its log is live")
        for line in linesA + Array(try TestServers.allLogLines(TestServers.relayLog).dropFirst(before.squidA)) {
            XCTAssertFalse(line.joined(separator: "\t").contains(uniqueAuthority), "A saw the origin's name: \(line)")
            XCTAssertFalse(line.joined(separator: "\t").contains(marker), "A saw the request: \(line)")
            XCTAssertFalse(line.joined().contains("relay-token-B"), "A saw B's token: \(line)")
        }
        // B: A connected over HTTP/2 (never the client) and asked for each origin; only B's token.
        let linesB = try TestServers.waitForLogLines(TestServers.http2RelayBLog, containing: uniqueAuthority, skipping: 0)
        XCTAssertEqual(linesB.count, 1, "B's log: one tunnel to the unique origin: \(linesB)")
        let fromUs = try TestServers.allLogLines(TestServers.http2RelayBLog).dropFirst(before.b)
            .filter { [uniqueAuthority, "origin.test:443"].contains($0[HTTP2RelayLogField.path.rawValue]) }
        XCTAssertFalse(fromUs.isEmpty)
        for line in linesB + fromUs {
            XCTAssertEqual(line[HTTP2RelayLogField.remoteAddress.rawValue], "127.0.0.11", "B must see A's address only: \(line)")
            XCTAssertEqual(line[HTTP2RelayLogField.alpn.rawValue], "h2", "B's log: A's hop to B spoke HTTP/2: \(line)")
            XCTAssertEqual(line[HTTP2RelayLogField.proxyAuthorization.rawValue], TestServers.relayBToken, "\(line)")
        }
    }

    func testFiftyConcurrentFetchesShareOneConnectionPerHop() async throws {
        let before = (a: try TestServers.allLogLines(TestServers.http2RelayALog).count, b: try TestServers.allLogLines(TestServers.http2RelayBLog).count)
        let earlier = Set(try TestServers.ownSockets(.tcp, to: "127.0.0.11:4433"))
        let session = try Session(configuration: TestServers.configuration(hops: [hopA, hopB]))
        defer { session.invalidate() }
        let hosts = ["origin.test", "www.origin.test", "origin2.test", "127.0.0.21", "127.0.0.22"]
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<50 {
                group.addTask {
                    try await session.data(from: URL(string: "https://\(hosts[index % hosts.count])/index.html?n=\(index)")!).1.statusCode
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(statuses, Array(repeating: 200, count: 50))
        let toA = Set(try TestServers.ownSockets(.tcp, to: "127.0.0.11:4433")).subtracting(earlier)
        XCTAssertEqual(toA.count, 1, "the kernel: one connection to A")
        let linesA = try TestServers.allLogLines(TestServers.http2RelayALog).dropFirst(before.a)
        XCTAssertEqual(Array(linesA).with(HTTP2RelayLogField.path, "127.0.0.12:4433").count, 1,
                       "A's log: one tunnel to B, so one connection to B through it: \(Array(linesA))")
        let targets = hosts.map { "\($0):443" }
        let linesB = try TestServers.waitForLogLines(TestServers.http2RelayBLog, containing: "", skipping: before.b, count: hosts.count)
            .filter { targets.contains($0[HTTP2RelayLogField.path.rawValue]) }
        XCTAssertEqual(Set(linesB.values(HTTP2RelayLogField.path)), Set(targets), "B's log: each origin needs a tunnel of its own")
        XCTAssertEqual(Set(linesB.values(HTTP2RelayLogField.remoteAddress)), ["127.0.0.11"])
        XCTAssertEqual(Set(linesB.values(HTTP2RelayLogField.alpn)), ["h2"])
    }

    func testMixedHTTP1AndHTTP2HopsAndThreeHops() async throws {
        let squidA = TestServers.relayHop()                       // HTTP/1.1 (squid offers no h2)
        let chains: [([ProxyConfiguration.RelayHop], String)] = [
            ([squidA, hopB], "127.0.0.12"),
            ([hopA, TestServers.relayHop(token: TestServers.relayBToken, url: TestServers.relayBURL)], "127.0.0.12"),
            ([squidA, hopB, TestServers.relayHop(url: TestServers.http2RelayAURL)], "127.0.0.11"),
        ]
        for (hops, egress) in chains {
            let marker = TestServers.marker("mixed")
            let session = try Session(configuration: TestServers.configuration(hops: hops))
            defer { session.invalidate() }
            let (body, response) = try await session.data(from: URL(string: "https://origin2.test/big?\(marker)")!)
            XCTAssertEqual(response.statusCode, 200)
            XCTAssertEqual(body.count, 1 << 20, "1 MiB through \(hops.count) hops needs flow control to work")
            XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originBLog, containing: marker, skipping: 0).first?.first, egress)
        }
    }

    func testSecondHopDownIsAnErrorNamingHopTwo() async throws {
        let marker = TestServers.marker("bdown")
        let deadB = TestServers.relayHop(token: TestServers.relayBToken, url: URL(string: "https://127.0.0.12:4499")!)
        for first in [hopA, TestServers.relayHop()] {
            let session = try Session(configuration: TestServers.configuration(hops: [first, deadB]))
            defer { session.invalidate() }
            for host in ["origin.test", TestServers.originAAddress] {
                do {
                    _ = try await session.data(from: URL(string: "https://\(host)/index.html?\(marker)")!)
                    XCTFail("B is down")
                } catch let error as FetchError {
                    XCTAssertEqual(error.relayError?.hop.index, 2, error.description)
                    XCTAssertTrue(error.description.hasPrefix("hop 2 (127.0.0.12:4499"), error.description)
                }
            }
        }
        try await TestServers.proveDirectlyReachable(TestServers.originAAddress)
        XCTAssertEqual(try TestServers.logLines(TestServers.originALog, containing: marker).count, 0, "origin A was reached")
    }

    func testEveryHopDownReachesNoOrigin() async throws {
        let marker = TestServers.marker("alldown")
        let deadA = TestServers.relayHop(url: URL(string: "https://127.0.0.11:4499")!)
        let deadB = TestServers.relayHop(token: TestServers.relayBToken, url: URL(string: "https://127.0.0.12:4499")!)
        let session = try Session(configuration: TestServers.configuration(hops: [deadA, deadB]))
        defer { session.invalidate() }
        for host in ["origin.test", TestServers.originAAddress, TestServers.originBAddress] {
            do {
                _ = try await session.data(from: URL(string: "https://\(host)/index.html?\(marker)")!)
                XCTFail("every hop is down, yet \(host) loaded")
            } catch let error as FetchError {
                XCTAssertEqual(error.relayError?.hop.index, 1)
                XCTAssertEqual(error.relayError?.cause, .connectionRefused)
            }
        }
        try await TestServers.proveDirectlyReachable(TestServers.originAAddress)
        try await TestServers.proveDirectlyReachable(TestServers.originBAddress)
        XCTAssertEqual(try TestServers.logLines(TestServers.originALog, containing: marker).count, 0, "origin A was reached")
        XCTAssertEqual(try TestServers.logLines(TestServers.originBLog, containing: marker).count, 0, "origin B was reached")
    }

    func testInsistingOnHTTP2FailsClearlyWhenTheRelayOffersOnlyHTTP1() async throws {
        let session = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop(relayProtocol: .http2)]))
        defer { session.invalidate() }
        do {
            _ = try await session.data(from: URL(string: "https://origin.test/")!)
            XCTFail("squid's https_port offers no h2")
        } catch let error as FetchError {
            XCTAssertEqual(error.relayError?.hop.index, 1)
            XCTAssertTrue(error.description.contains("relay does not offer HTTP/2"), error.description)
        }
    }

    func testPinnedPublicKeyTrustsTheRelayWithoutItsCA() async throws {
        let digest = try TestServers.relayPublicKeySHA256()
        for (pins, shouldWork) in [([digest], true), ([Data(repeating: 7, count: 32)], false)] {
            var hop = TestServers.relayHop(url: TestServers.http2RelayAURL, trustTestCA: false)
            hop.tlsOptions.pinnedPublicKeySHA256 = pins
            let session = try Session(configuration: TestServers.configuration(hops: [hop]))
            defer { session.invalidate() }
            do {
                _ = try await session.data(from: URL(string: "https://origin.test/")!)
                XCTAssertTrue(shouldWork)
            } catch let error as FetchError {
                XCTAssertFalse(shouldWork, error.description)
                XCTAssertEqual(error.relayError?.cause, .publicKeyPinMismatch)
            }
        }
    }
}

final class ReportCollector: Sendable {
    private let reports = Locked<[RelayHopTiming]>([])
    func add(_ new: [RelayHopTiming]) { reports.withLock { $0 += new } }
    var all: [RelayHopTiming] { reports.withLock { $0 } }
}

/// GOAWAY from an HTTP/2 relay: nghttpx reloaded with SIGHUP has its old worker send GOAWAY and
/// finish what is open, while a new worker takes new connections.
final class RelayGoAwayTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testAfterGoAwayNewTunnelsUseANewConnectionWhileOpenOnesFinish() async throws {
        let pidText = try String(contentsOf: TestServers.directory.appendingPathComponent("run/nghttpx-a.pid"), encoding: .utf8)
        let master = try XCTUnwrap(Int32(pidText.trimmingCharacters(in: .whitespacesAndNewlines)))
        let hop = TestServers.relayHop(url: TestServers.http2RelayAURL, relayProtocol: .http2)
        let earlier = Set(try TestServers.ownSockets(.tcp, to: "127.0.0.11:4433"))
        let session = try Session(configuration: TestServers.configuration(hops: [hop]))
        defer { session.invalidate() }
        _ = try await session.data(from: URL(string: "https://origin.test/index.html")!)
        // Connections as the kernel lists them, not as the client counts them.
        let before = Set(try TestServers.ownSockets(.tcp, to: "127.0.0.11:4433")).subtracting(earlier)
        XCTAssertEqual(before.count, 1)

        XCTAssertEqual(kill(master, SIGHUP), 0, "graceful reload of nghttpx A")
        try await Task.sleep(nanoseconds: 700_000_000)

        let (_, open) = try await session.data(from: URL(string: "https://origin.test/echo-headers")!)
        XCTAssertEqual(open.statusCode, 200, "the tunnel opened before GOAWAY still works")
        let (_, fresh) = try await session.data(from: URL(string: "https://origin2.test/index.html")!)
        XCTAssertEqual(fresh.statusCode, 200)
        let after = Set(try TestServers.ownSockets(.tcp, to: "127.0.0.11:4433")).subtracting(earlier).subtracting(before)
        XCTAssertEqual(after.count, 1, "a tunnel after GOAWAY goes over a new connection")
    }
}
