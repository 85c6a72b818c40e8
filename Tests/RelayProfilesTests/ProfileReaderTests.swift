import Foundation
import XCTest
import RelayFetch
@testable import RelayProfiles
import RelayFetchTestSupport

/// Every sample in Profiles/ loads with the content it was written with; every invalid one is
/// refused with the key path of its fault.
final class ProfileReaderTests: XCTestCase {
    private let profiles = TestServers.repository.appendingPathComponent("Profiles")
    private var sampleCA: String { profiles.appendingPathComponent("certs/sample-ca.pem").path }

    private func read(_ name: String, ca: String? = nil) throws -> ManagedRelayProfile {
        try ManagedRelayProfileReader.read(contentsOf: profiles.appendingPathComponent(name), signerCAFile: ca ?? sampleCA)
    }

    func testTwoHopCorporateProfile() throws {
        let profile = try read("two-hop-corporate.mobileconfig")
        XCTAssertEqual(profile.identifier, "com.example.relay.two-hop")
        XCTAssertNil(profile.signature)
        XCTAssertEqual(profile.warnings.map(\.message), ["the profile is not signed"])
        let payload = try XCTUnwrap(profile.relayPayloads.first)
        XCTAssertEqual(payload.relays.map { $0.http2RelayURL?.host }, ["ingress.corp.example.com", "egress.relay.example.net"])
        XCTAssertEqual(payload.relays.map { $0.http3RelayURL?.absoluteString }, ["https://ingress.corp.example.com:443", "https://egress.relay.example.net:443"])
        XCTAssertEqual(payload.relays[1].additionalHTTPHeaderFields, ["Proxy-Authorization": "PrivateToken token=egress-sample"])
        let proxy = payload.proxyConfiguration
        XCTAssertEqual(proxy.relayHops.count, 2)
        XCTAssertFalse(proxy.allowFailover)
        XCTAssertTrue(proxy.covers(host: "git.corp.example.com"))
        XCTAssertTrue(proxy.covers(host: "internal.example.com"))
        XCTAssertFalse(proxy.covers(host: "www.corp.example.com"), "excluded beats matched")
        XCTAssertFalse(proxy.covers(host: "example.com"))
        XCTAssertFalse(proxy.covers(host: "notcorp.example.com"), "label boundaries")
    }

    func testSplitDomainsBinaryProfileWithTwoPayloadsAndFQDNs() throws {
        let data = try Data(contentsOf: profiles.appendingPathComponent("split-domains.mobileconfig"))
        XCTAssertTrue(data.starts(with: Array("bplist00".utf8)), "the sample is a binary property list")
        let profile = try read("split-domains.mobileconfig")
        XCTAssertEqual(profile.relayPayloads.count, 2)
        let internalPayload = profile.relayPayloads[0]
        XCTAssertEqual(internalPayload.relays[0].http2RelayTemplate,
                       "https://relay.corp.example.com:8443/.well-known/masque/udp/{target_host}/{target_port}/")
        XCTAssertEqual(internalPayload.relays[0].http2RelayURL?.absoluteString, "https://relay.corp.example.com:8443")
        XCTAssertEqual(internalPayload.excludedFQDNs, ["status.internal.example.com"], "'Excluded FQDNs' with the space, as Apple spells it")
        let proxy = internalPayload.proxyConfiguration
        XCTAssertTrue(proxy.covers(host: "wiki.example.com"), "FQDNs match exactly")
        XCTAssertFalse(proxy.covers(host: "team.wiki.example.com"), "FQDNs do not cover subdomains")
        XCTAssertTrue(proxy.covers(host: "a.internal.example.com"))
        XCTAssertFalse(proxy.covers(host: "status.internal.example.com"))
        XCTAssertFalse(proxy.covers(host: "x.public.internal.example.com"))
        XCTAssertTrue(profile.relayPayloads[1].proxyConfiguration.covers(host: "api.partner.example.net"))
    }

    func testClientCertificateProfileResolvesItsIdentityAndPins() throws {
        let profile = try read("client-certificate.mobileconfig")
        let relay = try XCTUnwrap(profile.relayPayloads.first?.relays.first)
        XCTAssertEqual(relay.identity?.subject, "O=Example Corp,CN=relay client alice")
        XCTAssertEqual(relay.identity?.tlsIdentity.certificateDER.first, 0x30)
        let key = profiles.appendingPathComponent("certs/sample-relay.key").path
        let pin = try TestServers.run(["/bin/sh", "-c", "openssl pkey -in '\(key)' -pubout -outform DER | openssl dgst -sha256 -binary | base64"])
        XCTAssertEqual(relay.pinnedPublicKeySHA256, [Data(base64Encoded: pin.output.trimmingCharacters(in: .whitespacesAndNewlines))!])
        XCTAssertEqual(relay.relayHop.tlsOptions.clientIdentity, relay.identity?.tlsIdentity)
    }

    func testSignedProfileReportsItsSigner() throws {
        let trusted = try read("two-hop-corporate.signed.mobileconfig")
        XCTAssertEqual(trusted.signature?.signerSubject, "O=Example Corp,CN=Example Corp Profile Signing")
        XCTAssertEqual(trusted.signature?.signerTrusted, true)
        XCTAssertTrue(trusted.warnings.isEmpty, "\(trusted.warnings)")
        XCTAssertEqual(trusted.relayPayloads.first?.relays.count, 2)
        // Against the system store the signer is unknown: accepted, with a warning.
        let untrusted = try ManagedRelayProfileReader.read(contentsOf: profiles.appendingPathComponent("two-hop-corporate.signed.mobileconfig"))
        XCTAssertEqual(untrusted.signature?.signerTrusted, false)
        XCTAssertTrue(untrusted.warnings.contains { $0.message.contains("not trusted") })
    }

    func testInvalidProfilesNameTheKeyPath() {
        let expected: [(String, String)] = [
            ("plain-http-relay", "PayloadContent[0].Relays[0].HTTP2RelayURL: not an https URL: http://relay.example.com:8080"),
            ("no-relays", "PayloadContent[0].Relays: empty: a relay payload needs at least one relay"),
            ("bad-domain", "PayloadContent[0].MatchDomains[1]: not a domain name: \"https://intranet\""),
            ("unknown-certificate", "PayloadContent[0].Relays[0].PayloadCertificateUUID: no com.apple.security.pkcs12 payload has PayloadUUID 00000000-0000-0000-0000-000000000000"),
            ("bad-template", "PayloadContent[0].Relays[0].HTTP2RelayURL: not a valid RFC 9298 URI template"),
            ("headers-not-strings", "PayloadContent[0].Relays[0].AdditionalHTTPHeaderFields.Proxy-Authorization: expected a string"),
            ("tampered.signed", "the profile's CMS signature does not verify"),
            ("string-payload-version", "PayloadContent[0].PayloadVersion: expected an integer"),
        ]
        for (name, message) in expected {
            XCTAssertThrowsError(try read("invalid/\(name).mobileconfig")) { error in
                XCTAssertTrue("\(error)".hasPrefix(message), "\(name): \(error)")
            }
        }
    }

    /// Every key MDM validators type-check is checked here too: a value of another type is an
    /// error naming the key path, whichever dictionary it is in; the right type is accepted.
    func testEveryKnownKeyHasItsTypeChecked() throws {
        let relay: [String: Any] = ["HTTP2RelayURL": "https://r.example"]
        func profile(top: [String: Any] = [:], payload: [String: Any] = [:], relayKeys: [String: Any] = [:]) throws -> Data {
            let relayPayload = ["PayloadType": "com.apple.relay.managed", "PayloadVersion": 1,
                                "Relays": [relay.merging(relayKeys) { $1 }]].merging(payload) { $1 }
            let root = ["PayloadType": "Configuration", "PayloadVersion": 1, "PayloadContent": [relayPayload]].merging(top) { $1 }
            return try PropertyListSerialization.data(fromPropertyList: root, format: .xml, options: 0)
        }
        let wrong: [(String, Data)] = [
            ("PayloadVersion: expected an integer", try profile(top: ["PayloadVersion": "1"])),
            ("PayloadVersion: expected an integer", try profile(top: ["PayloadVersion": true])),
            ("PayloadVersion: expected an integer", try profile(top: ["PayloadVersion": 1.5])),
            ("PayloadRemovalDisallowed: expected a boolean", try profile(top: ["PayloadRemovalDisallowed": 1])),
            ("PayloadRemovalDisallowed: expected a boolean", try profile(top: ["PayloadRemovalDisallowed": "true"])),
            ("PayloadExpirationDate: expected a date", try profile(top: ["PayloadExpirationDate": "2030-01-01"])),
            ("ConsentText: expected a dictionary", try profile(top: ["ConsentText": "agree"])),
            ("TargetDeviceType: expected an integer", try profile(top: ["TargetDeviceType": "5"])),
            ("PayloadDisplayName: expected a string", try profile(top: ["PayloadDisplayName": 7])),
            ("PayloadContent[0].PayloadVersion: expected an integer", try profile(payload: ["PayloadVersion": "1"])),
            ("PayloadContent[0].PayloadUUID: expected a string", try profile(payload: ["PayloadUUID": 12])),
            ("PayloadContent[0].RelayUUID: expected a string", try profile(payload: ["RelayUUID": Data([1])])),
            ("PayloadContent[0].MatchDomains: expected an array", try profile(payload: ["MatchDomains": "corp.example"])),
            ("PayloadContent[0].Relays[0].AdditionalHTTPHeaderFields: expected a dictionary",
             try profile(relayKeys: ["AdditionalHTTPHeaderFields": "Proxy-Authorization: x"])),
            ("PayloadContent[0].Relays[0].HTTP3RelayURL: expected a string", try profile(relayKeys: ["HTTP3RelayURL": 443])),
        ]
        for (message, data) in wrong {
            XCTAssertThrowsError(try ManagedRelayProfileReader.read(data), message) { error in
                XCTAssertTrue("\(error)".hasPrefix(message), "expected \(message), got \(error)")
            }
        }
        let right = try profile(top: ["PayloadRemovalDisallowed": false, "PayloadExpirationDate": Date(), "DurationUntilRemoval": 3600,
                                      "TargetDeviceType": 5, "ConsentText": ["default": "ok"]],
                                payload: ["PayloadUUID": "A", "RelayUUID": "B", "MatchDomains": ["corp.example"]])
        XCTAssertEqual(try ManagedRelayProfileReader.read(right).relayPayloads.count, 1)
    }

    /// An RFC 9298 template on an IPv6 literal: its origin was rebuilt from `URL.host`, which
    /// has no brackets, and force-unwrapping the URL that made no URL trapped.
    func testTemplateOnAnIPv6LiteralKeepsItsOrigin() throws {
        let template = "https://[::1]:8443/.well-known/masque/udp/{target_host}/{target_port}/"
        let root: [String: Any] = ["PayloadType": "Configuration", "PayloadVersion": 1, "PayloadContent": [[
            "PayloadType": "com.apple.relay.managed", "PayloadVersion": 1, "Relays": [["HTTP2RelayURL": template]]]]]
        let profile = try ManagedRelayProfileReader.read(try PropertyListSerialization.data(fromPropertyList: root, format: .xml, options: 0))
        let relay = try XCTUnwrap(profile.relayPayloads.first?.relays.first)
        XCTAssertEqual(relay.http2RelayTemplate, template)
        XCTAssertEqual(relay.http2RelayURL?.absoluteString, "https://[::1]:8443")
    }

    func testUnknownKeysAreWarningsAndGarbageIsAnError() throws {
        let plist: [String: Any] = [
            "PayloadType": "Configuration", "PayloadContent": [[
                "PayloadType": "com.apple.relay.managed", "Relays": [["HTTP2RelayURL": "https://r.example", "Colour": "blue"]],
                "Flavour": 1,
            ], ["PayloadType": "com.apple.wifi.managed"]],
        ]
        let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
        let profile = try ManagedRelayProfileReader.read(data)
        XCTAssertEqual(profile.warnings.map(\.description), [
            "the profile is not signed",
            "PayloadContent[0].Flavour: unknown key, ignored",
            "PayloadContent[0].Relays[0].Colour: unknown key, ignored",
            "PayloadContent[1]: payload type com.apple.wifi.managed is not about relays, ignored",
        ])
        XCTAssertThrowsError(try ManagedRelayProfileReader.read(Data("hello".utf8)))
        XCTAssertThrowsError(try ManagedRelayProfileReader.read(Data("<?xml version=\"1.0\"?><plist><dict>".utf8)))
    }

    /// Found by the profile fuzz target: a binary plist with a set crashed Foundation's bridging
    /// (SEGV); sets, UIDs and object tables pointing outside the file are refused before parsing.
    func testBinaryPlistsWithSetsOrBrokenTablesAreRefusedBeforeFoundationParsesThem() throws {
        func bplist(objects: [[UInt8]], offsetTable: [UInt8]? = nil) -> Data {
            var bytes = Array("bplist00".utf8)
            var offsets: [UInt8] = []
            for object in objects { offsets.append(UInt8(bytes.count)); bytes += object }
            let table = bytes.count
            bytes += offsetTable ?? offsets
            bytes += [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, UInt8(objects.count)] + [UInt8](repeating: 0, count: 8)
                + [0, 0, 0, 0, 0, 0, 0, UInt8(table)]
            return Data(bytes)
        }
        let set = bplist(objects: [[0xC1, 0x01], [0x51, UInt8(ascii: "a")]])
        let uid = bplist(objects: [[0xA1, 0x01], [0x80, 0x07]])
        let outside = bplist(objects: [[0xA1, 0x01], [0x51, UInt8(ascii: "a")]], offsetTable: [8, 200])
        for (name, data, reason) in [("set", set, "type 0xC"), ("UID", uid, "type 0x8"), ("outside", outside, "outside the object table")] {
            XCTAssertThrowsError(try ManagedRelayProfileReader.read(data)) { error in
                XCTAssertTrue("\(error)".contains(reason), "\(name): \(error)")
            }
        }
        let array = bplist(objects: [[0xA1, 0x01], [0x51, UInt8(ascii: "a")]])
        XCTAssertNil(BinaryPropertyListCheck.problem(in: array), "an array of strings passes the check")
        XCTAssertNoThrow(try read("split-domains.mobileconfig"), "a real binary profile still loads")
    }
}
