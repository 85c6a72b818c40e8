import Foundation
import XCTest
import RelayFetch
import RelayProfiles
import RelayFetchTestSupport

/// A profile matching internal.test only, against the real relay: internal.test goes through the
/// relay, public.test goes direct; with the relay down, internal.test fails closed and public.test
/// still loads. And a relay that demands the profile's client certificate.
final class ProfileRoutingEndToEndTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    /// A profile for relay `url` pinned to the test relay's key, covering internal.test only.
    static func profile(relay url: String, identity p12: Data? = nil) throws -> URL {
        var relay: [String: Any] = ["HTTP2RelayURL": url, "RawPublicKeys": [try TestServers.relayPublicKeyDER()],
                                    "AdditionalHTTPHeaderFields": ["Proxy-Authorization": TestServers.relayToken]]
        var content: [[String: Any]] = []
        if let p12 {
            relay["PayloadCertificateUUID"] = "C0FFEE00-0000-4000-8000-000000000001"
            content.append(["PayloadType": "com.apple.security.pkcs12", "PayloadUUID": "C0FFEE00-0000-4000-8000-000000000001",
                            "PayloadContent": p12, "Password": "sample-p12-password"])
        }
        content.append(["PayloadType": "com.apple.relay.managed", "PayloadUUID": UUID().uuidString, "Relays": [relay],
                        "MatchDomains": ["internal.test"]])
        let plist: [String: Any] = ["PayloadType": "Configuration", "PayloadIdentifier": "test.routing", "PayloadContent": content]
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-profile-\(UUID().uuidString).mobileconfig")
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: file)
        return file
    }

    /// `relayProtocol` set on every hop the profile gives (h1: libcurl's own proxy reaches the relay).
    private func session(profile file: URL, relayProtocol: RelayProtocol = .automatic) throws -> Session {
        var proxies = try ManagedRelayProfileReader.read(contentsOf: file).proxyConfigurations
        for index in proxies.indices {
            for hop in proxies[index].relayHops.indices { proxies[index].relayHops[hop].relayProtocol = relayProtocol }
        }
        var configuration = Session.Configuration(proxyConfigurations: proxies)
        configuration.originCertificateAuthorityFile = TestServers.caFile
        // internal.test too, so that it would load if its route ever went direct.
        configuration.directHostAddresses = ["public.test:443": TestServers.originBAddress, "internal.test:443": TestServers.originAAddress]
        configuration.connectTimeout = 3
        return try Session(configuration: configuration)
    }

    func testMatchedHostIsRelayedAndOthersGoDirect() async throws {
        let file = try Self.profile(relay: "https://127.0.0.11:3129")
        defer { try? FileManager.default.removeItem(at: file) }
        let marker = TestServers.marker("profile")
        let relayedBefore = try TestServers.logLines(TestServers.relayLog, containing: "internal.test:443").count
        let session = try session(profile: file)
        let (_, relayed) = try await session.data(from: URL(string: "https://internal.test/index.html?\(marker)")!)
        let (_, direct) = try await session.data(from: URL(string: "https://public.test/index.html?\(marker)")!)
        session.invalidate()

        XCTAssertEqual(relayed.relayHops, ["127.0.0.11:3129"])
        XCTAssertEqual(direct.relayHops, [])
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originALog, containing: marker, skipping: 0).first?.first, "127.0.0.11")
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originBLog, containing: marker, skipping: 0).first?.first, "127.0.0.1")
        XCTAssertFalse(try TestServers.waitForLogLines(TestServers.relayLog, containing: "internal.test:443", skipping: relayedBefore).isEmpty)
        XCTAssertTrue(try TestServers.logLines(TestServers.relayLog, containing: "public.test").isEmpty, "public.test never reaches the relay")
    }

    func testRelayDownFailsTheMatchedHostOnly() async throws {
        let file = try Self.profile(relay: "https://127.0.0.13:3129")
        defer { try? FileManager.default.removeItem(at: file) }
        let marker = TestServers.marker("profiledown")
        let session = try session(profile: file)
        defer { session.invalidate() }
        do {
            _ = try await session.data(from: URL(string: "https://internal.test/index.html?\(marker)")!)
            XCTFail("internal.test must fail closed")
        } catch let error as FetchError {
            XCTAssertEqual(error.relayError?.hop.index, 1)
        }
        let (_, direct) = try await session.data(from: URL(string: "https://public.test/index.html?\(marker)")!)
        XCTAssertEqual(direct.statusCode, 200)
        XCTAssertEqual(try TestServers.waitForLogLines(TestServers.originBLog, containing: marker, skipping: 0).first?.first, "127.0.0.1")
        try await TestServers.proveDirectlyReachable(TestServers.originAAddress, as: "internal.test")
        XCTAssertEqual(try TestServers.logLines(TestServers.originALog, containing: marker).count, 0, "internal.test went direct")
    }

    /// For each way to the relay: the transport's chain (automatic), and libcurl's own proxy (h1),
    /// which gets the identity as DER blobs (never a file).
    func testProfileIdentityAuthenticatesToARelayThatDemandsIt() async throws {
        for relayProtocol in [RelayProtocol.automatic, .http1] { try await identityAuthenticates(relayProtocol) }
    }

    private func identityAuthenticates(_ relayProtocol: RelayProtocol) async throws {
        let p12 = try Data(contentsOf: TestServers.repository.appendingPathComponent("Profiles/certs/client.p12"))
        let withIdentity = try Self.profile(relay: "https://127.0.0.11:3130", identity: p12)
        let without = try Self.profile(relay: "https://127.0.0.11:3130")
        defer { try? FileManager.default.removeItem(at: withIdentity); try? FileManager.default.removeItem(at: without) }

        let good = try session(profile: withIdentity, relayProtocol: relayProtocol)
        defer { good.invalidate() }
        let (_, response) = try await good.data(from: URL(string: "https://internal.test/index.html")!)
        XCTAssertEqual(response.statusCode, 200)

        let bad = try session(profile: without, relayProtocol: relayProtocol)
        defer { bad.invalidate() }
        do {
            _ = try await bad.data(from: URL(string: "https://internal.test/index.html")!)
            XCTFail("the relay demands a client certificate")
        } catch let error as FetchError {
            XCTAssertEqual(error.relayError?.hop.index, 1, error.description)
        }
    }
}
