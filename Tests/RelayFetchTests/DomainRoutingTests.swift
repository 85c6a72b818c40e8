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
        guard let route = try session.route(for: URL(string: "https://a.internal.test/x")!) as? TunnelRoute else {
            return XCTFail("internal.test must be relayed")
        }
        XCTAssertEqual(route.target.description, "a.internal.test:443")
        XCTAssertEqual(route.hops.first?.authority, "relay.example:8443")
        XCTAssertEqual(route.hops.first?.headerFields.first?.value, "Bearer x")
        guard try session.route(for: URL(string: "https://public.test/")!) is DirectRoute else {
            return XCTFail("public.test is not covered and goes direct")
        }
    }

    /// Exactly one hop spoken to with HTTP/1.1 CONNECT (h1 to an https:// relay, or an http://
    /// relay) is libcurl's own proxy; any other hop, or more than one, is the transport's chain.
    func testOnlyOneHTTP1HopIsLibcurlsOwnProxy() throws {
        func hop(_ url: String, _ relayProtocol: RelayProtocol) -> ProxyConfiguration.RelayHop {
            var hop = ProxyConfiguration.RelayHop(http2RelayEndpoint: URL(string: url)!)
            hop.relayProtocol = relayProtocol
            return hop
        }
        let cases: [([ProxyConfiguration.RelayHop], Bool)] = [
            ([hop("https://relay.example", .http1)], true),
            ([hop("http://relay.example:3128", .automatic)], true),
            ([hop("http://relay.example:3128", .http1)], true),
            ([hop("https://relay.example", .automatic)], false),
            ([hop("https://relay.example", .http2)], false),
            ([hop("https://relay.example", .http3)], false),
            ([hop("https://a.example", .http1), hop("https://b.example", .http1)], false),
        ]
        for (hops, viaLibcurl) in cases {
            let session = try Session(configuration: .init(proxyConfigurations: [ProxyConfiguration(relayHops: hops)]))
            defer { session.invalidate() }
            let route = try session.route(for: URL(string: "http://origin.test/")!)
            let description = hops.map { "\($0.endpointURL!) \($0.relayProtocol)" }
            if let proxy = route as? CurlProxyRoute {
                XCTAssertTrue(viaLibcurl, "\(description)")
                XCTAssertEqual(proxy.target.description, "origin.test:80")
                XCTAssertEqual(proxy.proxyURL, hops[0].endpointURL!.absoluteString.hasPrefix("https") ? "https://relay.example:443" : "http://relay.example:3128")
            } else if route is TunnelRoute {
                XCTAssertFalse(viaLibcurl, "\(description)")
            } else {
                XCTFail("\(description): \(route)")
            }
        }
    }

    func testBadRelayAndTargetURLsAreClearErrors() throws {
        let bad = ProxyConfiguration.RelayHop(http2RelayEndpoint: URL(string: "ftp://relay.example")!)
        let session = try Session(configuration: .init(proxyConfigurations: [ProxyConfiguration(relayHops: [bad])]))
        defer { session.invalidate() }
        XCTAssertThrowsError(try session.route(for: URL(string: "https://origin.test/")!)) { error in
            XCTAssertTrue("\(error)".contains("relay 1: unsupported relay scheme \"ftp\""), "\(error)")
        }
        XCTAssertThrowsError(try session.route(for: URL(string: "ftp://origin.test/")!)) { error in
            XCTAssertTrue("\(error)".contains("unsupported URL scheme \"ftp\""), "\(error)")
        }
    }
}
