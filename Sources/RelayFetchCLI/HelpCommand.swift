import Foundation

/// `relayfetch help [COMMAND]`, plus what installs generate from the helps (not listed in the
/// top-level help: it is for scripts/install.sh): `help --man [COMMAND]` prints a man page,
/// `help --man-pages` their names, `help --completion bash|zsh|fish` a completion script.
enum HelpCommand {
    static func run(_ arguments: [String], io: CommandIO) throws -> Int32 {
        switch arguments.first {
        case nil:
            io.print(CommandLineTool.help)
        case "--man":
            guard arguments.count <= 2 else { throw UsageError("help --man takes one COMMAND at most") }
            io.write(Data(try CommandCatalog.manPage(for: arguments.dropFirst().first).roff.utf8))
        case "--man-pages":
            io.print(CommandCatalog.manPageNames.joined(separator: "\n"))
        case "--completion":
            guard arguments.count == 2, let shell = ShellCompletion.Shell(rawValue: arguments[1]) else {
                throw UsageError("help --completion needs one of \(ShellCompletion.Shell.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            io.write(Data(ShellCompletion.relayfetch.script(for: shell).utf8))
        case let name?:
            guard arguments.count == 1, let command = CommandLineTool.subcommands[name] else {
                throw UsageError("help: unknown command \(UsageError.quoted(name)) (see relayfetch --help)")
            }
            io.print(command.help)
        }
        return 0
    }
}
