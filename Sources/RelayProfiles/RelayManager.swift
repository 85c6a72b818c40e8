import Foundation
import RelayFetch

/// Saved relay configurations, like Apple's `NERelayManager`: several named configurations, each
/// a relay chain with the domains it covers and whether it is enabled. They live in one JSON file
/// under `$XDG_CONFIG_HOME/relayfetch/` (default `~/.config/relayfetch/`). Only configuration is
/// stored there, never browsing data.
public final class RelayManager {
    /// One saved relay, as `NERelay` describes it.
    public struct Relay: Codable, Sendable, Equatable {
        public var http3RelayURL: URL?
        public var http2RelayURL: URL?
        public var additionalHTTPHeaderFields: [String: String]

        public init(http3RelayURL: URL? = nil, http2RelayURL: URL? = nil, additionalHTTPHeaderFields: [String: String] = [:]) {
            self.http3RelayURL = http3RelayURL
            self.http2RelayURL = http2RelayURL
            self.additionalHTTPHeaderFields = additionalHTTPHeaderFields
        }
    }

    /// One named configuration: the chain (nearest the client first) and its domains.
    public struct Configuration: Codable, Sendable, Equatable {
        public var localizedDescription: String
        public var relays: [Relay]
        public var matchDomains: [String]
        public var excludedDomains: [String]
        public var isEnabled: Bool

        public init(localizedDescription: String, relays: [Relay], matchDomains: [String] = [], excludedDomains: [String] = [],
                    isEnabled: Bool = true) {
            self.localizedDescription = localizedDescription
            self.relays = relays
            self.matchDomains = matchDomains
            self.excludedDomains = excludedDomains
            self.isEnabled = isEnabled
        }
    }

    public var configurations: [Configuration] = []
    public let fileURL: URL

    public init(fileURL: URL = RelayManager.defaultFileURL()) {
        self.fileURL = fileURL
    }

    /// `$XDG_CONFIG_HOME/relayfetch/relays.json`, or `~/.config/relayfetch/relays.json`.
    public static func defaultFileURL(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory()).appendingPathComponent(".config")
        return base.appendingPathComponent("relayfetch/relays.json")
    }

    /// The enabled configurations, ready for a `Session`.
    public var proxyConfigurations: [ProxyConfiguration] {
        configurations.filter(\.isEnabled).map { configuration in
            var proxy = ProxyConfiguration(relayHops: configuration.relays.map {
                ProxyConfiguration.RelayHop(http3RelayEndpoint: $0.http3RelayURL, http2RelayEndpoint: $0.http2RelayURL,
                                            additionalHTTPHeaderFields: $0.additionalHTTPHeaderFields)
            })
            proxy.matchDomains = configuration.matchDomains
            proxy.excludedDomains = configuration.excludedDomains
            return proxy
        }
    }

    /// Replaces `configurations` with what is saved (none if nothing is).
    public func loadFromPreferences() throws {
        guard FileManager.default.fileExists(atPath: fileURL.path) else {
            configurations = []
            return
        }
        configurations = try JSONDecoder().decode([Configuration].self, from: Data(contentsOf: fileURL))
    }

    /// Saves `configurations` atomically, readable by the user only from the moment the file
    /// exists (it holds relay tokens): created 0600 in a 0700 directory, then renamed into place.
    public func saveToPreferences() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try PrivateFileWriter.write(try encoder.encode(configurations), to: fileURL)
    }

    /// Deletes the saved file.
    public func removeFromPreferences() throws {
        if FileManager.default.fileExists(atPath: fileURL.path) { try FileManager.default.removeItem(at: fileURL) }
        configurations = []
    }
}
