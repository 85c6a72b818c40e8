import Foundation
import XCTest
import RelayFetch
import RelayFetchTestSupport

/// Oblivious HTTP through nginx (the relay) and a pyhpke-based gateway: the relay sees who but
/// not what, the gateway and origin see what but not who.
final class ObliviousHTTPEndToEndTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    private func session(path: String = "/relay", keys: Data? = nil, chain: [ProxyConfiguration.RelayHop] = []) throws -> Session {
        var proxy = ProxyConfiguration(obliviousHTTPRelay: .init(http2RelayEndpoint: TestServers.ohttpRelayURL), relayResourcePath: path,
                                       gatewayKeyConfig: try keys ?? Data(contentsOf: TestServers.ohttpKeysFile), matchDomains: ["origin.test"])
        proxy.relayHops = chain
        var configuration = TestServers.configuration(hops: [])
        configuration.proxyConfigurations = [proxy]
        return try Session(configuration: configuration)
    }

    func testGatewayAndOriginNeverSeeTheClientAndTheRelayNeverSeesThePlaintext() async throws {
        let marker = TestServers.marker("ohttp")
        let relayLinesBefore = try TestServers.allLogLines(TestServers.ohttpRelayLog).count
        let session = try session()
        defer { session.invalidate() }
        let (body, response) = try await session.data(from: URL(string: "https://origin.test/index.html?\(marker)")!)
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(response.httpVersion, "OHTTP")
        XCTAssertTrue(String(decoding: body, as: UTF8.self).contains("<title>relayfetch sample site</title>"))

        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).map(\.first), ["127.0.0.32"], "the origin sees the gateway")
        let gateway = try TestServers.logLines(TestServers.ohttpGatewayLog, containing: marker)
        XCTAssertEqual(gateway.count, 1)
        XCTAssertEqual(gateway.first?[1], "127.0.0.30", "the gateway sees the relay, never the client")
        let relay = try TestServers.waitForLogLines(TestServers.ohttpRelayLog, containing: "", skipping: relayLinesBefore)
        XCTAssertEqual(relay.count, 1)
        XCTAssertEqual(relay.first?[0], "127.0.0.1", "the relay sees the client")
        XCTAssertEqual(relay.first?[2], "/relay")
        XCTAssertEqual(relay.first?[4], "message/ohttp-req", "the relay's log: an encapsulated request, so OHTTP")
        let relayText = try String(contentsOf: TestServers.ohttpRelayLog, encoding: .utf8)
        XCTAssertFalse(relayText.contains(marker) || relayText.contains("origin.test"), "the relay never sees what was asked")
    }

    func testCookiesStillGoThroughTheSessionStore() async throws {
        let session = try session()
        defer { session.invalidate() }
        _ = try await session.data(from: URL(string: "https://origin.test/cookies/set")!)
        let (echo, _) = try await session.data(from: URL(string: "https://origin.test/echo-headers")!)
        XCTAssertTrue(String(decoding: echo, as: UTF8.self).contains("cookie: session=s3cr3t; theme=dark\n"), String(decoding: echo, as: UTF8.self))
    }

    func testUnknownKeyIDAndUnsupportedSuiteAreClearErrors() async throws {
        var keys = try Data(contentsOf: TestServers.ohttpKeysFile)
        keys[keys.startIndex + 2] = 0x07  // the key id, after the 2-byte length of the first config
        let wrongKey = try session(keys: keys)
        defer { wrongKey.invalidate() }
        do {
            _ = try await wrongKey.data(from: URL(string: "https://origin.test/index.html")!)
            XCTFail("the gateway has no key 0x07")
        } catch let error as FetchError {
            XCTAssertTrue(error.description.hasPrefix("Oblivious HTTP: the relay answered 400"), error.description)
            XCTAssertTrue(error.description.contains("unknown key id 0x07"), error.description)
        }
        // A configuration whose only suite is an AEAD we do not know (0x00FE).
        var unsupported = Data([0x01, 0x00, 0x20]) + Data(repeating: 9, count: 32)
        unsupported += Data([0x00, 0x04, 0x00, 0x01, 0x00, 0xFE])
        let noSuite = try session(keys: Data([0x00, UInt8(unsupported.count)]) + unsupported)
        defer { noSuite.invalidate() }
        do {
            _ = try await noSuite.data(from: URL(string: "https://origin.test/index.html")!)
            XCTFail("no suite in common")
        } catch {
            XCTAssertTrue("\(error)".contains("no usable key configuration"), "\(error)")
        }
    }

    func testTamperedResponseIsAnErrorWithNoPartialData() async throws {
        let session = try session(path: "/relay-tamper")
        defer { session.invalidate() }
        do {
            let (body, _) = try await session.data(from: URL(string: "https://origin.test/index.html")!)
            XCTFail("a tampered response must not be accepted (got \(body.count) bytes)")
        } catch let error as FetchError {
            XCTAssertTrue(error.description.hasPrefix("Oblivious HTTP: the gateway's response failed"), error.description)
        }
    }

    func testTheRelayCanItselfBeReachedThroughARelayChain() async throws {
        let marker = TestServers.marker("ohttpchain")
        let relayLinesBefore = try TestServers.allLogLines(TestServers.ohttpRelayLog).count
        let session = try session(chain: [TestServers.relayHop()])
        defer { session.invalidate() }
        let (_, response) = try await session.data(from: URL(string: "https://origin.test/index.html?\(marker)")!)
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(response.relayHops, ["127.0.0.11:3129", "ohttp:https://127.0.0.30/relay"])
        let relay = try TestServers.waitForLogLines(TestServers.ohttpRelayLog, containing: "", skipping: relayLinesBefore)
        // Other runs may share the relay's log: this session's POST is among the new lines.
        XCTAssertTrue(relay.contains { $0[0] == "127.0.0.11" }, "the OHTTP relay sees the first relay, not the client: \(relay)")
    }
}
