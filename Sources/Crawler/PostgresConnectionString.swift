import Foundation
internal import CPostgreSQL

/// A PostgreSQL connection string as the user gave it: a `postgres://` / `postgresql://` URI or
/// a `key=value` conninfo string. It goes to libpq unchanged, so `sslmode`, `sslrootcert`,
/// `connect_timeout` and every other libpq parameter in it apply. Its passwords never go into a
/// message: `displayName` shows each as "***" (`user:***@`, `?password=***`, `password=***`,
/// `sslpassword` too), and `redacted` takes them out of any text (libpq's errors quote the
/// string's parts, a bad percent escape in a password for one), as written and as libpq reads
/// them.
struct PostgresConnectionString: Sendable {
    /// What libpq is given.
    let text: String
    /// `text` with every password replaced by "***".
    let displayName: String
    /// The passwords as written and as decoded, longest first (a shorter one may be inside).
    private let secrets: [String]

    init(_ text: String) {
        self.text = text
        let characters = Array(text)
        let isURI = Self.isURI(text)
        var spans = Self.keywordPasswordSpans(characters, isURI: isURI)
        if isURI, let userInfo = Self.userInfoPasswordSpan(characters) { spans.append(userInfo) }
        var display = "", written: [String] = [], position = 0
        for span in spans.sorted(by: { $0.lowerBound < $1.lowerBound }) where span.lowerBound >= position {
            display += String(characters[position..<span.lowerBound]) + "***"
            written.append(String(characters[span]))
            position = span.upperBound
        }
        displayName = display + String(characters[position...])
        let decoded = written.compactMap { isURI ? $0.removingPercentEncoding : Self.unquoted($0) }
        secrets = Set(written + decoded + Self.libpqPasswords(text)).filter { !$0.isEmpty }.sorted { $0.count > $1.count }
    }

    /// `message` with every password of this string replaced by "***".
    func redacted(_ message: String) -> String {
        secrets.reduce(message) { $0.replacingOccurrences(of: $1, with: "***") }
    }

    /// A store error: what failed (`doing`, e.g. "cannot connect to") this server, and why (a
    /// message of libpq or the server), passwords taken out of both.
    func failure(_ doing: String, _ why: String) -> CrawlError {
        CrawlError.store(redacted((doing.isEmpty ? "" : doing + " ") + "\(displayName): \(why)"))
    }

    /// Whether libpq takes `text` for a connection string rather than a database name: a
    /// PostgreSQL URI, or `key=value` pairs it can parse (`host=db dbname=crawl`). A file name
    /// such as `crawl.db` or `runs/a=b.db` is neither.
    static func isConnectionString(_ text: String) -> Bool {
        if isURI(text) { return true }
        guard text.contains("="), let options = PQconninfoParse(text, nil) else { return false }
        PQconninfoFree(options)
        return true
    }

    private static func isURI(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://")
    }

    /// The password of a URI's user info (`user:PASSWORD@`), found as libpq finds it: the user
    /// info ends at the first "@" before any "/".
    private static func userInfoPasswordSpan(_ characters: [Character]) -> Range<Int>? {
        guard let start = indexAfterScheme(characters) else { return nil }
        var end = start
        while end < characters.count, characters[end] != "@", characters[end] != "/" { end += 1 }
        guard end < characters.count, characters[end] == "@", let colon = characters[start..<end].firstIndex(of: ":") else { return nil }
        return colon + 1..<end
    }

    /// Where the authority of a URI starts (after "://").
    private static func indexAfterScheme(_ characters: [Character]) -> Int? {
        var index = 0
        while index + 2 < characters.count {
            if characters[index] == ":", characters[index + 1] == "/", characters[index + 2] == "/" { return index + 3 }
            index += 1
        }
        return nil
    }

    /// The values of every `password=` and `sslpassword=` (in any case, anywhere: a query
    /// parameter of a URI, a pair of conninfo). A URI's value ends at "&"; a conninfo value at
    /// white space, or is quoted ('...' with backslash escapes), as libpq reads them.
    private static func keywordPasswordSpans(_ characters: [Character], isURI: Bool) -> [Range<Int>] {
        let keyword = "password".map(String.init)
        var spans: [Range<Int>] = []
        var index = 0
        while index + keyword.count <= characters.count {
            guard zip(characters[index..<index + keyword.count], keyword).allSatisfy({ $0.lowercased() == $1 }) else {
                index += 1
                continue
            }
            var cursor = skippingSpaces(characters, from: index + keyword.count)
            guard cursor < characters.count, characters[cursor] == "=" else {
                index += 1
                continue
            }
            cursor = skippingSpaces(characters, from: cursor + 1)
            let start = cursor
            if !isURI, cursor < characters.count, characters[cursor] == "'" {
                cursor += 1
                while cursor < characters.count, characters[cursor] != "'" { cursor += characters[cursor] == "\\" ? 2 : 1 }
                cursor = min(cursor + 1, characters.count)
            } else {
                while cursor < characters.count, isURI ? characters[cursor] != "&" : !characters[cursor].isWhitespace {
                    cursor += !isURI && characters[cursor] == "\\" ? 2 : 1
                }
                cursor = min(cursor, characters.count)
            }
            if cursor > start { spans.append(start..<cursor) }
            index = max(cursor, index + 1)
        }
        return spans
    }

    private static func skippingSpaces(_ characters: [Character], from start: Int) -> Int {
        var index = start
        while index < characters.count, characters[index].isWhitespace { index += 1 }
        return index
    }

    /// A conninfo value as libpq reads it: without its quotes and backslash escapes.
    private static func unquoted(_ value: String) -> String {
        var body = Substring(value)
        if body.hasPrefix("'") { body = body.dropFirst() }
        if body.hasSuffix("'") { body = body.dropLast() }
        var result = "", escaped = false
        for character in body {
            if character == "\\" && !escaped {
                escaped = true
                continue
            }
            result.append(character)
            escaped = false
        }
        return result
    }

    /// The passwords libpq itself reads from `text` (none when it cannot parse it).
    private static func libpqPasswords(_ text: String) -> [String] {
        guard let options = PQconninfoParse(text, nil) else { return [] }
        defer { PQconninfoFree(options) }
        var result: [String] = []
        var option = options
        while let keyword = option.pointee.keyword {
            let name = String(cString: keyword)
            if name == "password" || name == "sslpassword", let value = option.pointee.val { result.append(String(cString: value)) }
            option += 1
        }
        return result
    }
}
