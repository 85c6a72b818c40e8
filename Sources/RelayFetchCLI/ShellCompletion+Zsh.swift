extension ShellCompletion {
    /// A completion function for zsh (`_relayfetch` on `fpath`): commands with their summaries,
    /// then `_arguments` specs for the command given, every option repeatable as most are.
    var zsh: String {
        let commandList = commands.map { "    " + Self.singleQuoted("\(Self.zshEscaped($0.name)):\(Self.zshEscaped($0.summary))") }
        let cases = commands.filter { !$0.options.isEmpty }.map { command in
            let specs = command.options.flatMap(Self.zshSpecs) + [Self.singleQuoted("*: :_default")]
            return "    (\(command.name))\n        _arguments -S \\\n" + specs.map { "            \($0)" }.joined(separator: " \\\n") + " ;;"
        }
        return """
        _relayfetch() {
          local -a commands
          commands=(
        \(commandList.joined(separator: "\n"))
          )
          if (( CURRENT == 2 )); then
            if [[ $PREFIX == -* ]]; then
              _arguments \(Self.zshSpecs(globalOptions).joined(separator: " "))
            else
              _describe -t commands 'relayfetch command' commands
            fi
            return
          fi
          local command=${words[2]}
          shift words
          (( CURRENT-- ))
          case $command in
        \(cases.joined(separator: "\n"))
          esac
        }
        _relayfetch "$@"

        """
    }

    /// One `_arguments` spec per spelling: "*-X+[the method]:METHOD:" (a short option's value
    /// may be attached, a long one's follow "=").
    private static func zshSpecs(_ option: HelpText.Option) -> [String] {
        option.flags.map { flag in
            var spec = "*" + flag
            if let argument = option.argument {
                let message = argument.filter { $0.isLetter || $0.isNumber || "._|@/ ".contains($0) }
                let action = switch option.value {
                case .file: "_files"
                case .directory: "_files -/"
                case .none, .text: ""
                }
                spec += (flag.hasPrefix("--") ? "=" : "+") + "[\(zshEscaped(option.summary))]:\(message.isEmpty ? "value" : message):\(action)"
            } else {
                spec += "[\(zshEscaped(option.summary))]"
            }
            return singleQuoted(spec)
        }
    }

    private static func zshSpecs(_ options: [HelpText.Option]) -> [String] { options.flatMap(zshSpecs) }

    /// Text inside an `_arguments` description or a `_describe` entry.
    private static func zshEscaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if "\\[]:".contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }
}
