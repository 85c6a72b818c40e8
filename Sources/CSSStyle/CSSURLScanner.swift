/// Finds the URLs a style sheet needs: `url(...)` (including `@font-face` sources and images)
/// and `@import "..."` / `@import url(...)`. Comments are skipped; strings are unquoted. One pass
/// over the UTF-8 bytes (CSS syntax is ASCII), so time and memory stay linear in the sheet's size.
package enum CSSURLScanner {
    /// A URL reference in CSS, whether it is an imported style sheet, and where its text is
    /// (UTF-8 byte offsets of the URL inside its quotes or parentheses) for rewriting.
    package struct Reference: Equatable {
        package let url: String
        package let isImport: Bool
        let range: Range<Int>
    }

    /// The references in `css`, at most `limit` of them (a hostile sheet may name millions).
    package static func references(in css: String, limit: Int = .max) -> [Reference] {
        references(in: Array(css.utf8), limit: limit)
    }

    package static func references(in text: [UInt8], limit: Int = .max) -> [Reference] {
        var result: [Reference] = []
        var index = 0
        while index < text.count, result.count < limit {
            if text[index] == UInt8(ascii: "/"), index + 1 < text.count, text[index + 1] == UInt8(ascii: "*") {
                index = skipComment(text, index + 2)
                continue
            }
            if matches(text, at: index, "@import") {
                index += 7
                skipSpace(text, &index)
                if matches(text, at: index, "url(") {
                    index += 4
                    if let found = readURLBody(text, &index) { result.append(Reference(url: found.url, isImport: true, range: found.range)) }
                } else if index < text.count, text[index] == UInt8(ascii: "\"") || text[index] == UInt8(ascii: "'") {
                    // `@import ""` names no sheet (resolved, it would be this very sheet).
                    if let found = readString(text, &index), !found.url.isEmpty {
                        result.append(Reference(url: found.url, isImport: true, range: found.range))
                    }
                }
                continue
            }
            if matches(text, at: index, "url(") && (index == 0 || !isNameCharacter(text[index - 1])) {
                index += 4
                if let found = readURLBody(text, &index) { result.append(Reference(url: found.url, isImport: false, range: found.range)) }
                continue
            }
            index += 1
        }
        return result
    }

    /// `css` with the text of each reference `replacement` returns a value for replaced, in one pass.
    package static func rewrite(_ css: String, limit: Int = .max, _ replacement: (Reference) -> String?) -> String {
        let text = Array(css.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(text.count)
        var copied = 0
        for reference in references(in: text, limit: limit) {
            guard let new = replacement(reference), reference.range.lowerBound >= copied else { continue }
            output += text[copied..<reference.range.lowerBound]
            output += Array(new.utf8)
            copied = reference.range.upperBound
        }
        output += text[copied...]
        return String(decoding: output, as: UTF8.self)
    }

    private static func skipComment(_ text: [UInt8], _ start: Int) -> Int {
        var index = start
        while index + 1 < text.count {
            if text[index] == UInt8(ascii: "*") && text[index + 1] == UInt8(ascii: "/") { return index + 2 }
            index += 1
        }
        return text.count
    }

    private static func matches(_ text: [UInt8], at index: Int, _ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= text.count else { return false }
        let scalars = word.utf8Start
        for offset in 0..<count where lower(text[index + offset]) != scalars[offset] { return false }
        return true
    }

    private static func lower(_ byte: UInt8) -> UInt8 { (65...90).contains(byte) ? byte + 32 : byte }

    private static func isNameCharacter(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || CharacterSetCheck.isAlphanumeric(Unicode.Scalar(byte))
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C }

    private static func skipSpace(_ text: [UInt8], _ index: inout Int) {
        while index < text.count, isSpace(text[index]) { index += 1 }
    }

    /// Reads after `url(` up to `)`: a quoted string or raw text.
    private static func readURLBody(_ text: [UInt8], _ index: inout Int) -> (url: String, range: Range<Int>)? {
        skipSpace(text, &index)
        var found: (url: String, range: Range<Int>)?
        if index < text.count, text[index] == UInt8(ascii: "\"") || text[index] == UInt8(ascii: "'") {
            found = readString(text, &index)
            skipSpace(text, &index)
        } else {
            var start = index
            while index < text.count, text[index] != UInt8(ascii: ")") { index += 1 }
            var end = index
            while start < end, isSpace(text[start]) { start += 1 }
            while end > start, isSpace(text[end - 1]) { end -= 1 }
            found = (String(decoding: text[start..<end], as: UTF8.self), start..<end)
        }
        while index < text.count, text[index] != UInt8(ascii: ")") { index += 1 }
        index += 1
        guard let found, !found.url.isEmpty else { return nil }
        return found
    }

    private static func readString(_ text: [UInt8], _ index: inout Int) -> (url: String, range: Range<Int>)? {
        let quote = text[index]
        index += 1
        let start = index
        var value: [UInt8] = []
        while index < text.count, text[index] != quote {
            if text[index] == UInt8(ascii: "\\"), index + 1 < text.count {
                index += 1
            }
            value.append(text[index])
            index += 1
        }
        let end = min(index, text.count)
        index += 1
        return (String(decoding: value, as: UTF8.self), start..<end)
    }
}

package enum CharacterSetCheck {
    package static func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        (48...57).contains(scalar.value) || (65...90).contains(scalar.value) || (97...122).contains(scalar.value)
    }
}
