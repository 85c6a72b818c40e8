import Foundation
import RelayProfiles

/// The managed default: the installed profiles every fetching command falls back to when no
/// relay option is given, and the one rule that nothing goes direct without --direct.
extension RelayOptions {
    /// Whether a session of these options relays: relays named, or the installed profiles taken.
    var usesRelays: Bool { namesRelays || managedDefault != nil }

    /// The one rule of every fetching command: it goes through the relays named, or else through
    /// the managed default (the administrator's and the user's installed profiles), and connects
    /// to origins without one only when --direct says so (crawl, which takes no --direct, never).
    /// Excluded or unmatched domains still go direct: those options and profiles say so too.
    /// Every command calls this once after parsing; an installed profile that cannot be used is
    /// a usage error naming its file (exit 2), never a silent fallback to no relays.
    mutating func requireRelays(for command: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        if direct && namesRelays { throw UsageError("--direct connects without relays: not with --relay, --profile or --ohttp-relay") }
        guard !namesRelays && !direct else { return }
        let installed: ManagedDefaultProfiles
        do {
            installed = try ManagedDefaultProfiles.load(environment: environment, signerCAFile: profileCAFile)
        } catch {
            throw UsageError("\(error) (see relayfetch profile status)")
        }
        guard installed.isEmpty else {
            if !(matchDomains.isEmpty && excludedDomains.isEmpty) {
                throw UsageError("--match-domain and --exclude-domain apply to --relay; the installed profiles have their own domains")
            }
            managedDefault = installed
            return
        }
        throw UsageError("\(command) needs relays (--relay, --profile or --ohttp-relay)"
                         + (allowsDirect ? ", or --direct to connect to origins without one (they then see your address)" : ": it never fetches directly"))
    }

    /// The installed profiles read again when they are what is in force (a proxy's SIGHUP): a
    /// changed file applies to new connections; one that no longer reads throws.
    mutating func rereadInstalledProfiles(for command: String) throws {
        guard managedDefault != nil else { return }
        managedDefault = nil
        try requireRelays(for: command)
    }
}
