/// A command's `--help` text read back as the parts a man page and the shell completions are
/// made of. The help the binary prints is the one table of options: man pages and completions
/// are generated from it, so none of them lists an option a second time.
///
/// The layout it reads is the one every help here keeps: a `Usage:` line, prose at column 0,
/// section headings (`Options:`), and items at column 2 (an option or a command, then its
/// description at a common column, continued on lines indented further); other lines at
/// column 2 or deeper (examples, notes) are kept as they are.
struct HelpText {
    enum Block: Equatable {
        /// The usage lines, without "Usage: ".
        case usage([String])
        /// A section heading, without its colon.
        case heading(String)
        /// Prose lines at column 0; a blank line ends one.
        case paragraph([String])
        /// An option or command (`-X, --request METHOD`) and its description's lines.
        case item(term: String, description: [String])
        /// Indented lines that are not items, kept as printed (their common indent removed).
        case literal([String])
    }

    let blocks: [Block]

    init(_ text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let column = Self.descriptionColumn(of: lines)
        var blocks: [Block] = []
        for line in lines {
            Self.add(line, to: &blocks, column: column)
        }
        self.blocks = blocks.compactMap { block in
            if case .paragraph([]) = block { return nil }  // the mark of a blank line
            guard case .literal(let lines) = block else { return block }
            let indent = lines.map(\.indent).min() ?? 0
            return .literal(lines.map { String($0.dropFirst(indent)) })
        }
    }

    /// The items whose term names options, each once (a help may list one twice, in two sections).
    var options: [Option] {
        var seen: Set<String> = []
        return blocks.compactMap { block in
            guard case .item(let term, let description) = block, let option = Option(term: term, description: description),
                  seen.insert(option.flags[0]).inserted else { return nil }
            return option
        }
    }

    /// The items that are not options (the commands of the top-level help, crawl's SEED).
    var entries: [(name: String, summary: String)] {
        blocks.compactMap { block in
            guard case .item(let term, let description) = block, !term.hasPrefix("-"),
                  let name = term.split(separator: " ").first else { return nil }
            return (String(name), Self.summary(of: description.joined(separator: " ")))
        }
    }

    /// The first prose of the help, shortened to a man page's NAME line.
    var summary: String {
        for case .paragraph(let lines) in blocks {
            let text = Self.summary(of: lines.joined(separator: " "))
            return text.prefix(1).lowercased() + text.dropFirst()
        }
        return ""
    }

    /// Text up to the end of its first clause (a colon, semicolon or period before a space),
    /// which leaves out a "; see relayfetch X --help" and keeps "com.apple.relay.managed" whole.
    static func summary(of text: String) -> String {
        let characters = Array(text)
        let end = characters.indices.first { ":;.".contains(characters[$0]) && ($0 + 1 == characters.count || characters[$0 + 1] == " ") }
        return String(characters[..<(end ?? characters.count)]).trimmingCharacters(in: .whitespaces)
    }

    // MARK: - Reading lines

    private static func add(_ line: String, to blocks: inout [Block], column: Int) {
        let indent = line.indent
        let text = line.trimmingCharacters(in: .whitespaces)
        let last = blocks.last
        if text.isEmpty {
            // A blank line ends the block before it: an empty paragraph marks it (dropped at the end).
            if last != .paragraph([]) { blocks.append(.paragraph([])) }
            return
        }
        if line.hasPrefix("Usage: ") {
            blocks.append(.usage([String(line.dropFirst("Usage: ".count))]))
            return
        }
        switch last {
        case .usage(let lines) where indent > 0:
            blocks[blocks.count - 1] = .usage(lines + [text])
            return
        case .item(let term, let description) where indent > 2 + 4:
            blocks[blocks.count - 1] = .item(term: term, description: description + [text])
            return
        case .literal(let lines) where lines.count == 1 && indent == column:
            // A term too long for its line ("  oauth SCENARIO.json..."): its description follows.
            blocks[blocks.count - 1] = .item(term: lines[0].trimmingCharacters(in: .whitespaces), description: [text])
            return
        case .literal(let lines) where indent > 2:
            blocks[blocks.count - 1] = .literal(lines + [line])
            return
        default: break
        }
        if indent == 0 && text.hasSuffix(":") && !text.dropLast().contains(":") && text.split(separator: " ").count <= 4 {
            blocks.append(.heading(String(text.dropLast())))
        } else if indent == 0, !isProse(last), let title = manSections.first(where: { text.hasPrefix($0 + ": ") }) {
            // "Exit status: 0 success, ..." is a section of its own in a man page.
            blocks += [.heading(title), .paragraph([String(text.dropFirst(title.count + 2))])]
        } else if indent <= 2, let (term, description) = split(line, column: indent == 0 ? nil : column) {
            blocks.append(.item(term: term, description: description.isEmpty ? [] : [description]))
        } else if indent == 0 {
            if case .paragraph(let lines) = last {
                blocks[blocks.count - 1] = .paragraph(lines + [text])
            } else {
                blocks.append(.paragraph([text]))
            }
        } else if case .literal(let lines) = last {
            blocks[blocks.count - 1] = .literal(lines + [line])
        } else {
            blocks.append(.literal([line]))
        }
    }

    /// Whether `block` is a paragraph a line at column 0 continues.
    private static func isProse(_ block: Block?) -> Bool {
        guard case .paragraph(let lines) = block else { return false }
        return !lines.isEmpty
    }

    /// Sections of a man page (man(7)) a help paragraph may start with, as "Exit status: ...".
    private static let manSections = ["Exit status", "Environment", "Files"]

    /// An item line's term and description: split at the first run of two or more spaces, or,
    /// when a long term leaves one space, at the description column; a line starting with an
    /// option and nothing beyond its term is an item whose description follows. At column 0
    /// (`column` nil), where prose is, only the first rule holds.
    private static func split(_ line: String, column: Int?) -> (String, String)? {
        let characters = Array(line)
        let start = line.indent
        var index = start
        while index + 1 < characters.count {
            if characters[index] == " " && characters[index + 1] == " " {
                let term = String(characters[start..<index])
                let description = String(characters[index...]).trimmingCharacters(in: .whitespaces)
                return description.isEmpty ? nil : (term, description)
            }
            index += 1
        }
        // Without a double space only an option and one value make a term, so prose at column
        // 2 that happens to have a space before the description column stays prose.
        func isTerm(_ term: String) -> Bool {
            HelpText.Option(term: term, description: []).map { !($0.argument?.contains(" ") ?? false) } ?? false
        }
        guard let column else { return nil }
        if characters.count > column, characters[column - 1] == " ", characters[column] != " ",
           isTerm(String(characters[start..<(column - 1)])) {
            return (String(characters[start..<(column - 1)]), String(characters[column...]))
        }
        return isTerm(String(characters[start...])) ? (String(characters[start...]), "") : nil
    }

    /// The column descriptions start at: the most common one among item lines that have a
    /// double space (ties go to the rightmost).
    private static func descriptionColumn(of lines: [String]) -> Int {
        var counts: [Int: Int] = [:]
        for line in lines where (1...2).contains(line.indent) {
            let characters = Array(line)
            guard let gap = (line.indent..<max(line.indent, characters.count - 1)).first(where: { characters[$0] == " " && characters[$0 + 1] == " " }),
                  let start = characters[gap...].firstIndex(where: { $0 != " " }) else { continue }
            counts[start, default: 0] += 1
        }
        return counts.max { ($0.value, $0.key) < ($1.value, $1.key) }?.key ?? 27
    }
}

extension String {
    /// The number of spaces the line starts with.
    fileprivate var indent: Int { prefix(while: { $0 == " " }).count }
}
