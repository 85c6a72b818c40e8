import Foundation
import XCTest
import RelayFetchTestSupport

/// A URL host written with capitals goes out as its lower-case form: each relay of relay A
/// (squid over HTTP/1.1, nghttpx over HTTP/2, the HTTP/3 relay) is asked for the lower-case
/// name, as its own log shows, and --match-domain covers it.
final class HostCaseCommandTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testCapitalisedHostReachesEveryRelayInLowerCase() async throws {
        // h16.origin.test: a name no other test uses, so these lines are this test's.
        let relays: [(arguments: [String], log: URL)] = [
            (["--relay", TestServers.relayURL.absoluteString], TestServers.relayLog),
            (["--relay", TestServers.http2RelayAURL.absoluteString, "--relay-protocol", "h2"], TestServers.http2RelayALog),
            (["--relay", TestServers.http2RelayAURL.absoluteString, "--relay-protocol", "h3"], TestServers.http3RelayALog),
        ]
        for (relay, log) in relays {
            let before = try TestServers.logLines(log, containing: "h16.origin.test:443").count
            let capitalsBefore = try TestServers.logLines(log, containing: "H16.Origin.Test").count
            let marker = TestServers.marker("capitals")
            let run = await CommandRun.run(["get", "https://H16.Origin.Test/index.html?\(marker)", "-o", "/dev/null", "--match-domain", "ORIGIN.test",
                                            "--cacert", TestServers.caFile] + relay
                                           + ["--relay-header", "Proxy-Authorization: \(TestServers.relayToken)", "--relay-cacert", TestServers.caFile])
            XCTAssertEqual(run.status, 0, "\(relay): \(run.stderr)")
            XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first?.first, "127.0.0.11",
                           "\(relay): relayed")
            XCTAssertFalse(try TestServers.waitForLogLines(log, containing: "h16.origin.test:443", skipping: before).isEmpty,
                           "\(relay): the relay's log has no tunnel to h16.origin.test")
            XCTAssertEqual(try TestServers.logLines(log, containing: "H16.Origin.Test").count, capitalsBefore, "\(relay): the relay saw the capitals")
        }
    }
}
