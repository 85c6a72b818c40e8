import RelayFetch
import HeadlessPage
import RelayTransport

/// `relayfetch version`: our version and each C library's, like `curl -V`.
enum VersionCommand {
    static func text() -> String {
        let libraries = RelayFetch.LibraryVersions.all + HeadlessPage.LibraryVersions.all + RelayTransport.LibraryVersions.all
        return "relayfetch \(RelayFetchVersion.current)\n" + libraries.map { "  \($0.name) \($0.version)" }.joined(separator: "\n")
    }
}
