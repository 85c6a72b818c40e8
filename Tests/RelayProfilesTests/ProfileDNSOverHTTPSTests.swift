import Foundation
import XCTest
import RelayFetch
import RelayProfiles
import RelayFetchTestSupport

/// A relay's `DNSOverHTTPSURL` in a managed profile becomes the hop's `dnsOverHTTPSURL`.
final class ProfileDNSOverHTTPSTests: XCTestCase {
    /// The two-hop sample with `DNSOverHTTPSURL` set to `value` on its first relay.
    private func profile(dnsOverHTTPS value: String) throws -> Data {
        let path = TestServers.repository.appendingPathComponent("Profiles/two-hop-corporate.mobileconfig")
        let text = try String(contentsOf: path, encoding: .utf8)
        let first = "<string>https://ingress.corp.example.com:443</string>\n\t\t\t\t\t<key>HTTP3RelayURL</key>"
        XCTAssertTrue(text.contains(first), "the sample changed")
        return Data(text.replacingOccurrences(of: first, with: "<string>https://ingress.corp.example.com:443</string>\n"
                                              + "\t\t\t\t\t<key>DNSOverHTTPSURL</key>\n\t\t\t\t\t<string>\(value)</string>\n"
                                              + "\t\t\t\t\t<key>HTTP3RelayURL</key>").utf8)
    }

    func testDNSOverHTTPSURLReachesTheHop() throws {
        let read = try ManagedRelayProfileReader.read(try profile(dnsOverHTTPS: "https://dns.corp.example.com/dns-query"))
        XCTAssertFalse(read.warnings.contains { "\($0)".contains("DNSOverHTTPSURL") }, "a known key: \(read.warnings)")
        let hops = read.proxyConfigurations.first?.relayHops ?? []
        XCTAssertEqual(hops.map { $0.dnsOverHTTPSURL?.absoluteString }, ["https://dns.corp.example.com/dns-query", nil])
    }

    func testANonHTTPSResolverIsRefusedWithItsKeyPath() {
        XCTAssertThrowsError(try ManagedRelayProfileReader.read(try profile(dnsOverHTTPS: "http://dns.corp.example.com/dns-query"))) { error in
            XCTAssertTrue("\(error)".contains("Relays[0].DNSOverHTTPSURL"), "\(error)")
        }
    }
}
