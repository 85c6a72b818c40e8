import Foundation
import RelayFetch

/// The relay profiles installed for every command, as MDM installs `com.apple.relay.managed`
/// profiles for every app: the administrator's (`/etc/relayfetch/managed.mobileconfig`) and the
/// user's (`$XDG_CONFIG_HOME/relayfetch/managed.mobileconfig`, default `~/.config/relayfetch/`).
/// The administrator's payloads come first, so for the hosts they cover they win (a session takes
/// the first configuration that covers a host, and never falls through to the next one when its
/// relays are down). Absent files are no error; a file that is there but unreadable or invalid is.
public struct ManagedDefaultProfiles: Sendable {
    /// The file name inside either folder.
    public static let fileName = "managed.mobileconfig"
    /// Replaces `/etc/relayfetch` (tests and packaging; never set it in production).
    public static let systemFolderVariable = "RELAYFETCH_SYSTEM_CONFIG_DIR"

    /// Who installed a profile.
    public enum Scope: String, Sendable {
        case administrator, user
    }

    /// Where one profile is looked for, and what was found there (nil: no file).
    public struct Source: Sendable {
        public let scope: Scope
        public let path: String
        public let profile: ManagedRelayProfile?
    }

    /// The administrator's source, then the user's.
    public let sources: [Source]

    /// The profiles found, administrator's payloads first: what a session gets.
    public var proxyConfigurations: [ProxyConfiguration] { sources.flatMap { $0.profile?.proxyConfigurations ?? [] } }

    /// Whether any profile was found.
    public var isEmpty: Bool { sources.allSatisfy { $0.profile == nil } }

    /// The two files' paths under `environment` (administrator's, then user's).
    public static func paths(environment: [String: String] = ProcessInfo.processInfo.environment) -> (administrator: String, user: String) {
        let system = environment[systemFolderVariable].flatMap { $0.isEmpty ? nil : $0 } ?? "/etc/relayfetch"
        // The user's folder is the one RelayManager saves its configurations in.
        let user = RelayManager.defaultFileURL(environment: environment).deletingLastPathComponent()
        return (URL(fileURLWithPath: system).appendingPathComponent(fileName).path, user.appendingPathComponent(fileName).path)
    }

    /// Reads both files. `signerCAFile` checks a signed profile's signer (nil: the system store).
    public static func load(environment: [String: String] = ProcessInfo.processInfo.environment,
                            signerCAFile: String? = nil) throws(ProfileError) -> ManagedDefaultProfiles {
        let (administrator, user) = paths(environment: environment)
        return ManagedDefaultProfiles(sources: [try source(.administrator, at: administrator, signerCAFile: signerCAFile),
                                                try source(.user, at: user, signerCAFile: signerCAFile)])
    }

    private static func source(_ scope: Scope, at path: String, signerCAFile: String?) throws(ProfileError) -> Source {
        // Only a missing file means "none installed": a directory or an unreadable file in its
        // place is an administrator's mistake that must not silently turn the relays off.
        guard FileManager.default.fileExists(atPath: path) else { return Source(scope: scope, path: path, profile: nil) }
        do {
            return Source(scope: scope, path: path, profile: try ManagedRelayProfileReader.read(contentsOf: URL(fileURLWithPath: path), signerCAFile: signerCAFile))
        } catch {
            throw error.installed(scope, at: path)
        }
    }
}
