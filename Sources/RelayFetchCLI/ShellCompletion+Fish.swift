extension ShellCompletion {
    /// `complete` lines for fish: commands while none is given, then each command's options
    /// once it is (`__fish_seen_subcommand_from`); no file names unless a value is a FILE or DIR.
    var fish: String {
        var lines = ["complete -c relayfetch -f"]
        lines += commands.map { "complete -c relayfetch -n __fish_use_subcommand -a \($0.name) -d \(Self.fishQuoted($0.summary))" }
        lines += globalOptions.map { Self.fishLine($0, condition: "__fish_use_subcommand") }
        for command in commands {
            lines += command.options.map { Self.fishLine($0, condition: Self.singleQuoted("__fish_seen_subcommand_from \(command.name)")) }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func fishLine(_ option: HelpText.Option, condition: String) -> String {
        var line = "complete -c relayfetch -n \(condition)"
        for flag in option.flags {
            line += flag.hasPrefix("--") ? " -l \(flag.dropFirst(2))" : " -s \(fishQuoted(String(flag.dropFirst())))"
        }
        switch option.value {
        case .none: break
        case .file: line += " -r -F"
        case .directory: line += " -x -a '(__fish_complete_directories)'"
        case .text: line += " -x"
        }
        return line + " -d \(fishQuoted(option.summary))"
    }

    /// fish's single quotes: only a backslash and a quote are escaped inside them.
    private static func fishQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }
}
