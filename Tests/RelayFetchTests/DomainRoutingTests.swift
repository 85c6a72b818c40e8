import Foundation
import XCTest
@testable import RelayFetch

/// matchDomains / excludedDomains: suffix match on label boundaries, excluded wins.
final class DomainRoutingTests: XCTestCase {
    func testMatchingIsOnLabelBoundaries() {
        var proxy = ProxyConfiguration(relayHops: [])
        proxy.matchDomains = ["example.com"]
        XCTAssertTrue(proxy.covers(host: "example.com"))
        XCTAssertTrue(proxy.covers(host: "www.example.com"))
        XCTAssertTrue(proxy.covers(host: "WWW.Example.COM."))
        XCTAssertFalse(proxy.covers(host: "badexample.com"))
        XCTAssertFalse(proxy.covers(host: "example.com.evil.net"))
    }

    func testExcludedWinsAndEmptyMatchMeansEverything() {
        var proxy = ProxyConfiguration(relayHops: [])
        XCTAssertTrue(proxy.covers(host: "anything.test"))
        proxy.excludedDomains = ["public.test"]
        XCTAssertFalse(proxy.covers(host: "public.test"))
        XCTAssertFalse(proxy.covers(host: "cdn.public.test"))
        proxy.matchDomains = ["test"]
        XCTAssertTrue(proxy.covers(host: "internal.test"))
        XCTAssertFalse(proxy.covers(host: "www.public.test"))
    }

    func testAllowFailoverDefaultsToFalse() {
        XCTAssertFalse(ProxyConfiguration(relayHops: []).allowFailover)
    }

    func testSessionRoutesOnlyCoveredHostsThroughTheRelay() throws {
        let hop = ProxyConfiguration.RelayHop(http2RelayEndpoint: URL(string: "https://relay.example:8443")!,
                                              additionalHTTPHeaderFields: ["Proxy-Authorization": "Bearer x"])
        var proxy = ProxyConfiguration(relayHops: [hop])
        proxy.matchDomains = ["internal.test"]
        let session = try Session(configuration: .init(proxyConfigurations: [proxy]))
        defer { session.invalidate() }
        guard case .relayed(let route) = try session.route(for: URL(string: "https://a.internal.test/x")!) else {
            return XCTFail("internal.test must be relayed")
        }
        XCTAssertEqual(route.target.description, "a.internal.test:443")
        XCTAssertEqual(route.hops.first?.authority, "relay.example:8443")
        XCTAssertEqual(route.hops.first?.headerFields.first?.value, "Bearer x")
        guard case .direct = try session.route(for: URL(string: "https://public.test/")!) else {
            return XCTFail("public.test is not covered and goes direct")
        }
    }

    func testBadRelayAndTargetURLsAreClearErrors() throws {
        let bad = ProxyConfiguration.RelayHop(http2RelayEndpoint: URL(string: "socks5://relay.example")!)
        let session = try Session(configuration: .init(proxyConfigurations: [ProxyConfiguration(relayHops: [bad])]))
        defer { session.invalidate() }
        XCTAssertThrowsError(try session.route(for: URL(string: "https://origin.test/")!)) { error in
            XCTAssertTrue("\(error)".contains("relay 1: unsupported relay scheme \"socks5\""), "\(error)")
        }
        XCTAssertThrowsError(try session.route(for: URL(string: "ftp://origin.test/")!)) { error in
            XCTAssertTrue("\(error)".contains("unsupported URL scheme \"ftp\""), "\(error)")
        }
    }
}
