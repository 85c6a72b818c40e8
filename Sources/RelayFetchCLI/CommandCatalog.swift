import RelayFetch

/// The commands of relayfetch in the order the top-level help lists them, each with the summary
/// given there and its own help: what the man pages and the shell completions are made of.
enum CommandCatalog {
    struct Entry {
        let name: String
        let summary: String
        /// The command's own help (nil for `version`, which has none).
        let help: HelpText?
    }

    static var commands: [Entry] {
        HelpText(CommandLineTool.help).entries.map { entry in
            Entry(name: entry.name, summary: entry.summary, help: CommandLineTool.subcommands[entry.name].map { HelpText($0.help) })
        }
    }

    /// The names of the man pages: relayfetch, then relayfetch-COMMAND for each command with a help.
    static var manPageNames: [String] { ["relayfetch"] + commands.filter { $0.help != nil }.map { "relayfetch-\($0.name)" } }

    /// `relayfetch(1)` for nil, else `relayfetch-COMMAND(1)`; throws for a command without a help.
    static func manPage(for command: String?) throws -> ManPage {
        let pages = commands.filter { $0.help != nil }
        guard let command else {
            let help = HelpText(CommandLineTool.help)
            return ManPage(name: "relayfetch", summary: help.summary, help: help, seeAlso: Array(manPageNames.dropFirst()),
                           version: RelayFetchVersion.current)
        }
        guard let entry = pages.first(where: { $0.name == command }), let help = entry.help else {
            throw UsageError("help --man: no page for \(UsageError.quoted(command)) (one of \(pages.map(\.name).joined(separator: ", ")))")
        }
        return ManPage(name: "relayfetch-\(command)", summary: entry.summary, help: help, seeAlso: ["relayfetch"], version: RelayFetchVersion.current)
    }
}
