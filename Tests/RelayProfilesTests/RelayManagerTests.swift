import Foundation
import XCTest
import RelayFetch
import RelayProfiles

/// RelayManager keeps configuration (never browsing data) in $XDG_CONFIG_HOME/relayfetch.
final class RelayManagerTests: XCTestCase {
    func testSaveLoadAndRemoveUnderXDGConfigHome() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-xdg-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let file = RelayManager.defaultFileURL(environment: ["XDG_CONFIG_HOME": home.path, "HOME": "/nonexistent"])
        XCTAssertEqual(file.path, home.appendingPathComponent("relayfetch/relays.json").path)
        XCTAssertEqual(RelayManager.defaultFileURL(environment: ["HOME": "/home/u"]).path, "/home/u/.config/relayfetch/relays.json")

        let manager = RelayManager(fileURL: file)
        manager.configurations = [
            .init(localizedDescription: "corp", relays: [.init(http2RelayURL: URL(string: "https://relay.corp.example:443")!,
                                                                additionalHTTPHeaderFields: ["Proxy-Authorization": "Bearer t"])],
                  matchDomains: ["corp.example"], excludedDomains: ["www.corp.example"]),
            .init(localizedDescription: "off", relays: [.init(http2RelayURL: URL(string: "https://other.example")!)], isEnabled: false),
        ]
        try manager.saveToPreferences()
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)

        let reloaded = RelayManager(fileURL: file)
        try reloaded.loadFromPreferences()
        XCTAssertEqual(reloaded.configurations, manager.configurations)
        XCTAssertEqual(reloaded.proxyConfigurations.count, 1, "only enabled configurations are used")
        XCTAssertTrue(reloaded.proxyConfigurations[0].covers(host: "git.corp.example"))
        XCTAssertFalse(reloaded.proxyConfigurations[0].covers(host: "www.corp.example"))

        try reloaded.removeFromPreferences()
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path))
        try reloaded.loadFromPreferences()
        XCTAssertTrue(reloaded.configurations.isEmpty)
    }
}
