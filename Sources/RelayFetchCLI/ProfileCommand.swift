import Foundation
import RelayFetch
import RelayProfiles

/// `relayfetch profile check|show FILE` explains a managed relay profile; `profile status` the
/// installed ones (`ManagedDefaultProfiles`).
struct ProfileCommand: Subcommand {
    static let help = """
    Usage: relayfetch profile check FILE [--profile-cacert FILE]
           relayfetch profile show FILE --json [--profile-cacert FILE]
           relayfetch profile status [--profile-cacert FILE]

    Read a com.apple.relay.managed configuration profile (.mobileconfig as XML or binary property
    list, optionally CMS-signed) and explain it: the relays of each payload (nearest the client
    first), the domains and host names they cover, pinned keys, client identities, the signer.
    Header values are not printed, only their names.

    check   prints the explanation; warnings for unknown keys or a missing signature
    show    with --json, prints the same as one JSON object
    status  explains the installed profiles every command uses when given no relay option:
            the administrator's, /etc/relayfetch/managed.mobileconfig, which wins for the hosts
            it covers, then the user's, $XDG_CONFIG_HOME/relayfetch/managed.mobileconfig
            (default ~/.config/relayfetch/); which files were found, their chains and domains
    Options:
      --profile-cacert FILE   PEM CA file to check the signer (default: the system store)
      -h, --help              show this help

    Exit status: 0 valid, 1 invalid (the message names the key path), 2 bad usage.
    """

    enum Action { case check, show, status }
    let action: Action
    let path: String?
    let caFile: String?

    static func parse(_ arguments: [String]) throws -> ProfileCommand? {
        var scanner = ArgumentScanner(arguments)
        var positionals: [String] = []
        var json = false
        var caFile: String?
        while let argument = scanner.next() {
            switch argument {
            case "-h", "--help": return nil
            case "--json": json = true
            case "--profile-cacert": caFile = try scanner.value()
            default:
                if argument.hasPrefix("-") { throw UsageError("unknown option \(argument) for profile (see relayfetch profile --help)") }
                positionals.append(argument)
            }
        }
        if positionals == ["status"] {
            if json { throw UsageError("profile status prints text only; --json goes with profile show") }
            return ProfileCommand(action: .status, path: nil, caFile: caFile)
        }
        guard positionals.count == 2, let action = ["check": Action.check, "show": .show][positionals[0]] else {
            throw UsageError("profile needs check or show and one FILE, or status (see relayfetch profile --help)")
        }
        if action == .show && !json { throw UsageError("profile show needs --json") }
        return ProfileCommand(action: action, path: positionals[1], caFile: caFile)
    }

    func run(io: CommandIO) -> Int32 {
        guard let path else { return status(io: io) }
        let profile: ManagedRelayProfile
        do {
            profile = try ManagedRelayProfileReader.read(contentsOf: URL(fileURLWithPath: path), signerCAFile: caFile)
        } catch {
            io.log("relayfetch: error: \(path): \(error)")
            return 1
        }
        switch action {
        case .check: io.print(ProfileReport.text(profile, path: path))
        case .show: io.write(ProfileReport.json(profile))
        case .status: break
        }
        return 0
    }

    /// `profile status`: an installed profile that cannot be used is reported as invalid (exit 1).
    private func status(io: CommandIO) -> Int32 {
        do {
            io.print(ProfileStatusReport.text(try ManagedDefaultProfiles.load(signerCAFile: caFile)))
            return 0
        } catch {
            io.log("relayfetch: error: \(error)")
            return 1
        }
    }
}
