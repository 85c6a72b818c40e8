extension HelpText {
    /// One row of a help's option table: its spellings, the value it takes and what it does.
    struct Option: Equatable {
        /// What a shell offers for the value.
        enum Value: Equatable { case none, file, directory, text }

        /// Short spelling first, as printed ("-X", "--request").
        let flags: [String]
        /// The value's name as printed ("METHOD", "'N: v'"), nil for a flag.
        let argument: String?
        let description: String

        /// Reads an item's term ("-X, --request METHOD"); nil when it does not start with an option.
        init?(term: String, description: [String]) {
            var flags: [String] = []
            var words = term.split(separator: " ")[...]
            var expectsFlag = true  // after "-X," another spelling must follow
            while expectsFlag, let word = words.first {
                let flag = word.hasSuffix(",") ? word.dropLast() : word
                guard Self.isFlag(flag) else { break }
                flags.append(String(flag))
                words = words.dropFirst()
                expectsFlag = word.hasSuffix(",")
            }
            // "--a, b" is prose that starts with an option, not a list of spellings.
            guard !flags.isEmpty, !expectsFlag else { return nil }
            self.flags = flags
            argument = words.isEmpty ? nil : words.joined(separator: " ")
            self.description = description.joined(separator: " ")
        }

        var value: Value {
            guard let argument else { return .none }
            if argument.contains("DIR") { return .directory }
            if argument.contains("FILE") || argument.contains("SCENARIO") { return .file }
            return .text
        }

        /// The description's first clause, short enough for a completion menu.
        var summary: String {
            let text = HelpText.summary(of: description)
            return text.count <= 70 ? text : String(text.prefix(67)) + "..."
        }

        /// "-X" or "--long-name" (lower case, digits and dashes); "-" alone is a value, not a flag.
        static func isFlag(_ word: Substring) -> Bool {
            if word.count == 2, word.first == "-", let letter = word.last { return letter.isLetter || letter.isNumber || letter == "#" }
            return word.count > 2 && word.hasPrefix("--")
                && word.dropFirst(2).allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }
        }
    }
}
