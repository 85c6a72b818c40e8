extension ShellCompletion {
    /// A completion function for bash: the word after `relayfetch` completes commands, a word
    /// starting with "-" the options of the command given; an option's value is left to bash's
    /// default completion (file names), which `complete -o default` asks for.
    var bash: String {
        let cases = commands.filter { !$0.options.isEmpty }.map { command in
            let valued = command.options.filter { $0.argument != nil }.flatMap(\.flags)
            return "        \(command.name)) options=\(Self.singleQuoted(command.options.flatMap(\.flags).joined(separator: " ")))"
                + " valued=\(Self.singleQuoted(valued.joined(separator: " "))) ;;"
        }
        return """
        _relayfetch() {
            local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
            local options= valued=
            case ${COMP_WORDS[1]} in
        \(cases.joined(separator: "\n"))
            esac
            if (( COMP_CWORD == 1 )); then
                options=\(Self.singleQuoted(globalOptions.flatMap(\.flags).joined(separator: " ")))
                if [[ $cur != -* ]]; then
                    COMPREPLY=($(compgen -W \(Self.singleQuoted(commands.map(\.name).joined(separator: " "))) -- "$cur"))
                    return
                fi
            fi
            # An option's value: bash's default completion (file names).
            [[ " $valued " == *" $prev "* ]] && return
            if [[ $cur == -* ]]; then
                COMPREPLY=($(compgen -W "$options" -- "$cur"))
            fi
        }
        complete -o default -F _relayfetch relayfetch

        """
    }
}
