/// CSS escapes: `\` then up to six hex digits (and one optional space), or any other character.
enum CSSEscapes {
    static func decode(_ text: [Unicode.Scalar], _ index: inout Int) -> Unicode.Scalar? {
        guard index + 1 < text.count, text[index] == "\\", text[index + 1] != "\n" else { return nil }
        index += 1
        var hex = ""
        while index < text.count, hex.count < 6, text[index].properties.isASCIIHexDigit {
            hex.unicodeScalars.append(text[index])
            index += 1
        }
        if hex.isEmpty {
            defer { index += 1 }
            return text[index]
        }
        if index < text.count, SelectorParser.isSpace(text[index]) { index += 1 }
        let value = UInt32(hex, radix: 16) ?? 0xFFFD
        return value == 0 ? Unicode.Scalar(0xFFFD) : Unicode.Scalar(value) ?? Unicode.Scalar(0xFFFD)
    }
}
