import Foundation
import RelayProfiles
import RelayFetchTestSupport

/// Installed relay profiles of a test's own: the administrator's folder (through
/// RELAYFETCH_SYSTEM_CONFIG_DIR, never the real /etc) and the user's (XDG_CONFIG_HOME) both
/// point into a temporary folder for as long as this lives; `remove()` puts the environment back.
/// Commands run in-process, so they read these variables from this process's environment.
final class InstalledProfiles {
    let root: URL
    let administratorFile: URL
    let userFile: URL
    private let saved: [(String, String?)]

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("relayfetch-installed-\(UUID().uuidString)")
        let system = root.appendingPathComponent("etc"), config = root.appendingPathComponent("config")
        administratorFile = system.appendingPathComponent(ManagedDefaultProfiles.fileName)
        userFile = config.appendingPathComponent("relayfetch/\(ManagedDefaultProfiles.fileName)")
        try FileManager.default.createDirectory(at: userFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: system, withIntermediateDirectories: true)
        let variables = [(ManagedDefaultProfiles.systemFolderVariable, system.path), ("XDG_CONFIG_HOME", config.path)]
        saved = variables.map { ($0.0, ProcessInfo.processInfo.environment[$0.0]) }
        for (name, value) in variables { setenv(name, value, 1) }
    }

    func remove() {
        for (name, value) in saved {
            if let value { setenv(name, value, 1) } else { unsetenv(name) }
        }
        try? FileManager.default.removeItem(at: root)
    }

    /// One relay of a profile: its URL and the token its Proxy-Authorization carries.
    struct Relay {
        let url: String
        let token: String
        static let a = Relay(url: TestServers.relayURL.absoluteString, token: TestServers.relayToken)
        static let b = Relay(url: TestServers.relayBURL.absoluteString, token: TestServers.relayBToken)
        static let dead = Relay(url: TestServers.deadRelayURL.absoluteString, token: TestServers.relayToken)
    }

    /// Writes a profile with one relay payload (a chain pinned to the test relays' key) covering
    /// `matchDomains` (none: every host) as the administrator's (`administrator`) or the user's.
    func install(administrator: Bool, chain: [Relay], matchDomains: [String] = []) throws {
        let key = try TestServers.relayPublicKeyDER()
        var payload: [String: Any] = ["PayloadType": "com.apple.relay.managed", "PayloadUUID": UUID().uuidString,
                                      "PayloadIdentifier": "test.\(administrator ? "administrator" : "user")",
                                      "Relays": chain.map { ["HTTP2RelayURL": $0.url, "RawPublicKeys": [key],
                                                             "AdditionalHTTPHeaderFields": ["Proxy-Authorization": $0.token]] as [String: Any] }]
        if !matchDomains.isEmpty { payload["MatchDomains"] = matchDomains }
        let plist: [String: Any] = ["PayloadType": "Configuration", "PayloadContent": [payload]]
        try write(try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0), administrator: administrator)
    }

    func write(_ data: Data, administrator: Bool) throws {
        try data.write(to: administrator ? administratorFile : userFile)
    }
}
