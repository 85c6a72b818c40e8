import Foundation
import XCTest
import RelayFetch
import RelayFetchTestSupport

/// One `Session.Configuration` value given to two sessions: each gets a store of its own unless
/// the caller set one on purpose, as `WKWebsiteDataStore` instances are shared. Proven by the
/// origin's own access log (the Cookie header it received).
final class DataStoreSharingTests: XCTestCase {
    override func setUpWithError() throws { try TestServers.ensureRunning() }

    func testTwoSessionsFromOneConfigurationShareNoCookies() async throws {
        let configuration = TestServers.configuration(hops: [TestServers.relayHop()])
        let first = try Session(configuration: configuration)
        let second = try Session(configuration: configuration)
        defer { first.invalidate(); second.invalidate() }
        XCTAssertFalse(first.dataStore === second.dataStore)

        let marker = TestServers.marker("store")
        _ = try await first.data(from: URL(string: "https://origin.test/cookies/set?\(marker)")!)
        _ = try await first.data(from: URL(string: "https://origin.test/echo-headers?\(marker)-first")!)
        _ = try await second.data(from: URL(string: "https://origin.test/echo-headers?\(marker)-second")!)
        // A session made "like the first one", from its configuration, gets a store of its own too.
        let third = try Session(configuration: first.configuration)
        defer { third.invalidate() }
        _ = try await third.data(from: URL(string: "https://origin.test/echo-headers?\(marker)-third")!)

        let cookieOf: (String) throws -> String? = { tag in
            try TestServers.waitForLogLines(TestServers.originALog, containing: "\(marker)-\(tag)", skipping: 0).first?[OriginLogField.cookie.rawValue]
        }
        XCTAssertEqual(try cookieOf("first"), "session=s3cr3t; theme=dark", "the first session sends what it was given")
        XCTAssertEqual(try cookieOf("second"), "-", "the second session, from the same configuration value, sends no cookie")
        XCTAssertEqual(try cookieOf("third"), "-", "a session from the first one's configuration sends no cookie")
    }

    func testAStoreSetOnPurposeIsShared() async throws {
        var configuration = TestServers.configuration(hops: [TestServers.relayHop()])
        configuration.dataStore = .nonPersistent()
        let first = try Session(configuration: configuration)
        let second = try Session(configuration: configuration)
        defer { first.invalidate(); second.invalidate() }
        XCTAssertTrue(first.dataStore === second.dataStore)

        let marker = TestServers.marker("shared")
        _ = try await first.data(from: URL(string: "https://origin.test/cookies/set?\(marker)")!)
        _ = try await second.data(from: URL(string: "https://origin.test/echo-headers?\(marker)-second")!)
        // A session made "like the first one", from its configuration, gets a store of its own too.
        let third = try Session(configuration: first.configuration)
        defer { third.invalidate() }
        _ = try await third.data(from: URL(string: "https://origin.test/echo-headers?\(marker)-third")!)
        let line = try TestServers.waitForLogLines(TestServers.originALog, containing: "\(marker)-second", skipping: 0).first
        XCTAssertEqual(line?[OriginLogField.cookie.rawValue], "session=s3cr3t; theme=dark")
    }

    /// A session sharing another's connections has its own store: the cookie the first got is
    /// not sent by the sharer. Both go through the first's one relay connection, and the sharer
    /// going away (invalidated, released) leaves the first working.
    func testSharingConnectionsKeepsTheStoreApart() async throws {
        let first = try Session(configuration: TestServers.configuration(hops: [TestServers.relayHop()]))
        defer { first.invalidate() }
        let marker = TestServers.marker("sharing")
        _ = try await first.data(from: URL(string: "https://origin.test/cookies/set?\(marker)")!)
        do {
            let sharer = first.sharingConnections(dataStore: .nonPersistent())
            XCTAssertFalse(sharer.dataStore === first.dataStore)
            _ = try await sharer.data(from: URL(string: "https://origin.test/echo-headers?\(marker)-sharer")!)
            sharer.invalidate()
        }
        _ = try await first.data(from: URL(string: "https://origin.test/echo-headers?\(marker)-first")!)
        let cookieOf: (String) throws -> String? = { tag in
            try TestServers.waitForLogLines(TestServers.originALog, containing: "\(marker)-\(tag)", skipping: 0).first?[OriginLogField.cookie.rawValue]
        }
        XCTAssertEqual(try cookieOf("sharer"), "-", "the sharer's store is its own")
        XCTAssertEqual(try cookieOf("first"), "session=s3cr3t; theme=dark", "the first still works, with its cookies")
        let opened = await first.relayConnectionsOpened()
        XCTAssertEqual(opened, [1: 1], "one relay connection carried all three")
    }
}
