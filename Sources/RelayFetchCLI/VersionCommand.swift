import RelayFetch
import HeadlessPage
internal import CBuildInfo

/// `relayfetch version`: our version and the git commit it was built from, then each C
/// library's version, like `curl -V`.
enum VersionCommand {
    static func text() -> String {
        let libraries = LibraryVersions.all + LibraryVersions.page
        return "relayfetch \(RelayFetchVersion.current) (commit \(commit))\n" + libraries.map { "  \($0.name) \($0.version)" }.joined(separator: "\n")
    }

    /// The commit scripts/build-release.sh built from ("-dirty" when the tree had changes).
    static var commit: String {
        let commit = String(cString: rf_build_commit())
        return commit.isEmpty ? "unknown: not built by scripts/build-release.sh" : commit
    }
}
