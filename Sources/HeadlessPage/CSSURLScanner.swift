/// Finds the URLs a style sheet needs: `url(...)` (including `@font-face` sources and images)
/// and `@import "..."` / `@import url(...)`. Comments are skipped; strings are unquoted.
enum CSSURLScanner {
    /// A URL reference in CSS, and whether it is an imported style sheet.
    struct Reference: Equatable {
        let url: String
        let isImport: Bool
    }

    static func references(in css: String) -> [Reference] {
        let text = Array(stripComments(css).unicodeScalars)
        var result: [Reference] = []
        var index = 0
        while index < text.count {
            if matches(text, at: index, "@import") {
                index += 7
                skipSpace(text, &index)
                if matches(text, at: index, "url(") {
                    index += 4
                    if let url = readURLBody(text, &index) { result.append(Reference(url: url, isImport: true)) }
                } else if index < text.count, text[index] == "\"" || text[index] == "'" {
                    // `@import ""` names no sheet (resolved, it would be this very sheet).
                    if let url = readString(text, &index), !url.isEmpty { result.append(Reference(url: url, isImport: true)) }
                }
                continue
            }
            if matches(text, at: index, "url(") && (index == 0 || !isNameCharacter(text[index - 1])) {
                index += 4
                if let url = readURLBody(text, &index) { result.append(Reference(url: url, isImport: false)) }
                continue
            }
            index += 1
        }
        return result
    }

    private static func stripComments(_ css: String) -> String {
        var output = ""
        var rest = Substring(css)
        while let start = rest.range(of: "/*") {
            output += rest[..<start.lowerBound]
            guard let end = rest[start.upperBound...].range(of: "*/") else { return output }
            rest = rest[end.upperBound...]
        }
        return output + rest
    }

    private static func matches(_ text: [Unicode.Scalar], at index: Int, _ word: String) -> Bool {
        let scalars = Array(word.unicodeScalars)
        guard index + scalars.count <= text.count else { return false }
        for (offset, scalar) in scalars.enumerated() where lower(text[index + offset]) != scalar { return false }
        return true
    }

    private static func lower(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        (65...90).contains(scalar.value) ? Unicode.Scalar(scalar.value + 32)! : scalar
    }

    private static func isNameCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "-" || scalar == "_" || CharacterSetCheck.isAlphanumeric(scalar)
    }

    private static func skipSpace(_ text: [Unicode.Scalar], _ index: inout Int) {
        while index < text.count, [" ", "\t", "\n", "\r", "\u{0C}"].contains(text[index]) { index += 1 }
    }

    /// Reads after `url(` up to `)`: a quoted string or raw text.
    private static func readURLBody(_ text: [Unicode.Scalar], _ index: inout Int) -> String? {
        skipSpace(text, &index)
        var value: String?
        if index < text.count, text[index] == "\"" || text[index] == "'" {
            value = readString(text, &index)
            skipSpace(text, &index)
        } else {
            var raw = ""
            while index < text.count, text[index] != ")" {
                raw.unicodeScalars.append(text[index])
                index += 1
            }
            value = raw.trimmingCharacters(in: .whitespaces)
        }
        while index < text.count, text[index] != ")" { index += 1 }
        index += 1
        guard let value, !value.isEmpty else { return nil }
        return value
    }

    private static func readString(_ text: [Unicode.Scalar], _ index: inout Int) -> String? {
        let quote = text[index]
        index += 1
        var value = ""
        while index < text.count, text[index] != quote {
            if text[index] == "\\", index + 1 < text.count {
                index += 1
            }
            value.unicodeScalars.append(text[index])
            index += 1
        }
        index += 1
        return value
    }
}

enum CharacterSetCheck {
    static func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        (48...57).contains(scalar.value) || (65...90).contains(scalar.value) || (97...122).contains(scalar.value)
    }
}
