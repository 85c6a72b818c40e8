import Foundation
import XCTest
import RelayFetch
import RelayProfiles

/// Where the installed profiles are looked for, and their order: the administrator's first.
final class ManagedDefaultProfilesTests: XCTestCase {
    func testPathsAreEtcAndTheXDGConfigFolder() {
        let defaults = ManagedDefaultProfiles.paths(environment: ["HOME": "/home/u"])
        XCTAssertEqual(defaults.administrator, "/etc/relayfetch/managed.mobileconfig")
        XCTAssertEqual(defaults.user, "/home/u/.config/relayfetch/managed.mobileconfig")
        let moved = ManagedDefaultProfiles.paths(environment: ["HOME": "/home/u", "XDG_CONFIG_HOME": "/cfg", "RELAYFETCH_SYSTEM_CONFIG_DIR": "/stage/etc/relayfetch"])
        XCTAssertEqual(moved.administrator, "/stage/etc/relayfetch/managed.mobileconfig")
        XCTAssertEqual(moved.user, "/cfg/relayfetch/managed.mobileconfig")
        XCTAssertEqual(ManagedDefaultProfiles.paths(environment: ["HOME": "/h", "RELAYFETCH_SYSTEM_CONFIG_DIR": ""]).administrator,
                       "/etc/relayfetch/managed.mobileconfig", "an empty variable is no folder")
    }

    func testTheAdministratorsPayloadsComeFirstAndMissingFilesAreNone() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-managed-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let environment = ["HOME": "/nonexistent", "XDG_CONFIG_HOME": root.appendingPathComponent("cfg").path,
                           "RELAYFETCH_SYSTEM_CONFIG_DIR": root.appendingPathComponent("etc").path]
        XCTAssertTrue(try ManagedDefaultProfiles.load(environment: environment).isEmpty)
        let (administrator, user) = ManagedDefaultProfiles.paths(environment: environment)
        for (path, relay, domain) in [(user, "https://user.example", "user.test"), (administrator, "https://admin.example", "corp.test")] {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let plist: [String: Any] = ["PayloadType": "Configuration", "PayloadContent": [[
                "PayloadType": "com.apple.relay.managed", "Relays": [["HTTP2RelayURL": relay]], "MatchDomains": [domain]]]]
            try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: path))
        }
        let installed = try ManagedDefaultProfiles.load(environment: environment)
        XCTAssertEqual(installed.sources.map(\.scope), [.administrator, .user])
        XCTAssertEqual(installed.proxyConfigurations.map(\.matchDomains), [["corp.test"], ["user.test"]])
    }

    /// A broken installed profile is a `ProfileError` (the module's one error) naming whose it is
    /// and its file, with the text the command prints.
    func testABrokenInstalledProfileIsAProfileErrorNamingItsScopeAndFile() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-managed-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let environment = ["HOME": "/nonexistent", "XDG_CONFIG_HOME": root.appendingPathComponent("cfg").path,
                           "RELAYFETCH_SYSTEM_CONFIG_DIR": root.appendingPathComponent("etc").path]
        let user = ManagedDefaultProfiles.paths(environment: environment).user
        try FileManager.default.createDirectory(atPath: (user as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data("not a profile".utf8).write(to: URL(fileURLWithPath: user))
        XCTAssertThrowsError(try ManagedDefaultProfiles.load(environment: environment)) { error in
            let error = error as? ProfileError
            XCTAssertEqual(error?.installed?.scope, .user)
            XCTAssertEqual(error?.installed?.path, user)
            XCTAssertEqual(error?.keyPath, "")
            XCTAssertTrue(error.map { "\($0)" }?.hasPrefix("the user's relay profile \(user) cannot be used: ") ?? false, "\(String(describing: error))")
        }
    }
}
