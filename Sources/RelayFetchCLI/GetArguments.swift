import Foundation

/// `get`'s command line before it is scanned: bundled short options taken apart as curl takes
/// them (`-sSL`, `-XPOST`, `-d@file`), and each `-K FILE` replaced by the arguments its curl
/// config file stands for.
enum GetArguments {
    /// Short options that take no value.
    static let shortFlags: Set<Character> = ["i", "f", "v", "h", "I", "L", "s", "S", "Z", "G", "#"]
    /// Short options that take a value (the rest of a bundle, or the next argument).
    static let shortValued: Set<Character> = ["o", "C", "H", "X", "d", "F", "T", "w", "A", "u", "e", "r", "K"]
    /// Long options of get whose value may start with "-" (a body, a header, a format).
    static let longValued: Set<String> = ["--data", "--data-ascii", "--data-binary", "--data-raw", "--data-urlencode", "--json", "--form",
                                          "--form-string", "--request", "--header", "--write-out", "--user-agent", "--user", "--referer",
                                          "--range", "--output", "--upload-file"]
    /// Config files may name further config files, this deep at most (a file naming itself ends).
    static let maximumConfigDepth = 8

    static func expanded(_ arguments: [String], standardInput: () -> Data, depth: Int = 0) throws -> [String] {
        var result: [String] = []
        var remaining = unbundled(arguments)[...]
        while let argument = remaining.popFirst() {
            let path: String
            if argument == "-K" || argument == "--config" {
                guard let value = remaining.popFirst() else { throw UsageError("\(argument) needs a value") }
                path = value
            } else if argument.hasPrefix("--config=") {
                path = String(argument.dropFirst("--config=".count))
            } else {
                result.append(argument)
                continue
            }
            guard depth < maximumConfigDepth else {
                throw UsageError("-K \(UsageError.quoted(path)): config files nest more than \(maximumConfigDepth) deep")
            }
            let text = String(decoding: try ArgumentFile.read(path, option: "-K", standardInput: standardInput), as: UTF8.self)
            let source = path == "-" ? "standard input" : UsageError.quoted(path)
            result += try expanded(try CurlConfigFile.arguments(text, source: source), standardInput: standardInput, depth: depth + 1)
        }
        return result
    }

    /// "-sSL" as "-s", "-S", "-L"; "-XPOST" as "-X", "POST". An argument with a letter that is
    /// not a short option of get stays whole (the scanner then names it as unknown).
    static func unbundled(_ arguments: [String]) -> [String] {
        var result: [String] = []
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            guard argument.count > 2, argument.hasPrefix("-"), !argument.hasPrefix("--") else {
                result.append(argument)
                // A value that looks like a bundle ("-H" "-x") is the option's, not options.
                let takesValue = argument.count == 2 ? argument.last.map(shortValued.contains) == true : longValued.contains(argument)
                if takesValue, let value = remaining.popFirst() {
                    result.append(value)
                }
                continue
            }
            var pieces: [String] = []
            var letters = argument.dropFirst()
            var whole = false
            while let letter = letters.popFirst() {
                if shortFlags.contains(letter) {
                    pieces.append("-\(letter)")
                } else if shortValued.contains(letter) {
                    pieces.append("-\(letter)")
                    if letters.isEmpty {
                        if let value = remaining.popFirst() { pieces.append(value) }
                    } else {
                        pieces.append(String(letters))
                    }
                    break
                } else {
                    whole = true
                    break
                }
            }
            result += whole ? [argument] : pieces
        }
        return result
    }
}
