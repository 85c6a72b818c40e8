/// Low-level CSS text handling shared by the style sheet parser: comments, strings, balanced
/// blocks and top-level splitting. Works on UTF-8 bytes (CSS syntax characters are ASCII).
enum CSSText {
    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C }

    static func starts(_ text: ArraySlice<UInt8>, at index: Int, _ word: String) -> Bool {
        let bytes = Array(word.utf8)
        guard index + bytes.count <= text.endIndex else { return false }
        return text[index..<(index + bytes.count)].elementsEqual(bytes)
    }

    /// The text with `/* */` comments removed (strings kept as they are).
    static func withoutComments(_ text: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(text.count)
        var index = 0
        while index < text.count {
            let byte = text[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                let end = stringEnd(text[...], from: index)
                output += text[index..<end]
                index = end
            } else if byte == UInt8(ascii: "/"), index + 1 < text.count, text[index + 1] == UInt8(ascii: "*") {
                index += 2
                while index + 1 < text.count, !(text[index] == UInt8(ascii: "*") && text[index + 1] == UInt8(ascii: "/")) { index += 1 }
                index = min(index + 2, text.count)
                output.append(0x20)
            } else {
                output.append(byte)
                index += 1
            }
        }
        return output
    }

    /// The index after the string starting at `start` (its quote); a newline or the end closes it too.
    static func stringEnd(_ text: ArraySlice<UInt8>, from start: Int) -> Int {
        let quote = text[start]
        var index = start + 1
        while index < text.endIndex {
            let byte = text[index]
            if byte == UInt8(ascii: "\\") { index += 2; continue }
            if byte == quote { return index + 1 }
            if byte == 0x0A { return index }
            index += 1
        }
        return text.endIndex
    }

    /// One rule from `start`: its prelude, its `{ }` block (nil when a `;` ended it) and the index after it.
    static func readRule(_ text: ArraySlice<UInt8>, from start: Int) -> (prelude: ArraySlice<UInt8>, block: ArraySlice<UInt8>?, next: Int) {
        var index = start
        var depth = 0
        while index < text.endIndex {
            let byte = text[index]
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "'"): index = stringEnd(text, from: index); continue
            case UInt8(ascii: "("), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: ")"), UInt8(ascii: "]"): depth = max(0, depth - 1)
            case UInt8(ascii: ";") where depth == 0: return (text[start..<index], nil, index + 1)
            case UInt8(ascii: "{") where depth == 0:
                let close = blockEnd(text, from: index)
                return (text[start..<index], text[(index + 1)..<close], min(close + 1, text.endIndex))
            default: break
            }
            index += 1
        }
        return (text[start..<index], nil, index)
    }

    /// The index of the `}` closing the block opened at `open` (the end when it never closes).
    private static func blockEnd(_ text: ArraySlice<UInt8>, from open: Int) -> Int {
        var index = open + 1
        var depth = 1
        while index < text.endIndex {
            let byte = text[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") { index = stringEnd(text, from: index); continue }
            if byte == UInt8(ascii: "\\") { index += 2; continue }
            if byte == UInt8(ascii: "{") { depth += 1 }
            if byte == UInt8(ascii: "}") {
                depth -= 1
                if depth == 0 { return index }
            }
            index += 1
        }
        return text.endIndex
    }

    /// Splits at `separator` outside parentheses, brackets, braces and strings.
    static func splitTopLevel(_ text: String, separator: Character) -> [String] {
        var parts: [String] = []
        var current = ""
        var depth = 0
        var quote: Character?
        var escaped = false
        for character in text {
            if escaped { escaped = false; current.append(character); continue }
            if character == "\\" { escaped = true; current.append(character); continue }
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if "([{".contains(character) {
                depth += 1
            } else if ")]}".contains(character) {
                depth = max(0, depth - 1)
            } else if character == separator || (separator == " " && character.isWhitespace), depth == 0 {
                parts.append(current)
                current = ""
                continue
            }
            current.append(character)
        }
        parts.append(current)
        return parts
    }
}
