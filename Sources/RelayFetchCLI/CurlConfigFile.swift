import Foundation

/// A curl config file (`-K`, `--config`) as the arguments it stands for, read the way curl 8
/// reads one: one option per line, its leading dashes optional ("url = ...", "--silent",
/// "-o file"); the value after blanks, `=` or `:`; a value in double quotes may hold blanks and
/// the escapes \\ \" \t \n \r \v, an unquoted one ends at the first blank; `#` starts a comment
/// line. A long option without dashes that is not `url` gets "--" in front; `url` gives a URL.
enum CurlConfigFile {
    /// The arguments `text` stands for; `source` names the file in errors ("config FILE line N").
    static func arguments(_ text: String, source: String) throws -> [String] {
        var arguments: [String] = []
        for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            var line = Substring(rawLine).drop { $0 == " " || $0 == "\t" }
            if line.last == "\r" { line = line.dropLast() }
            guard let first = line.first, first != "#" else { continue }
            let name = line.prefix { !($0 == " " || $0 == "\t" || $0 == "=" || $0 == ":") }
            var rest = line.dropFirst(name.count).drop { $0 == " " || $0 == "\t" || $0 == "=" || $0 == ":" }
            let where_ = "config \(source) line \(index + 1)"
            let value: String?
            if rest.first == "\"" {
                rest = rest.dropFirst()
                value = try unquoted(&rest, where: where_)
                if let junk = rest.first(where: { $0 != " " && $0 != "\t" }), junk != "#" {
                    throw UsageError("\(where_): text after the quoted value of \(name) (\(UsageError.quoted(String(rest))))")
                }
            } else {
                let word = rest.prefix { $0 != " " && $0 != "\t" }
                value = word.isEmpty ? nil : String(word)
            }
            if name == "url" || name == "--url" {
                guard let value else { throw UsageError("\(where_): url needs a value") }
                arguments.append(value)
                continue
            }
            arguments.append(name.hasPrefix("-") ? String(name) : "--" + name)
            if let value { arguments.append(value) }
        }
        return arguments
    }

    /// The text of a double-quoted value up to its closing quote (consumed), escapes resolved.
    private static func unquoted(_ text: inout Substring, where location: String) throws -> String {
        var value = ""
        while let character = text.popFirst() {
            switch character {
            case "\"": return value
            case "\\":
                guard let escaped = text.popFirst() else { break }
                switch escaped {
                case "t": value.append("\t")
                case "n": value.append("\n")
                case "r": value.append("\r")
                case "v": value.append("\u{0B}")
                default: value.append(escaped)
                }
            default: value.append(character)
            }
        }
        throw UsageError("\(location): a quoted value has no closing quote")
    }
}
