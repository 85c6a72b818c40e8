import Foundation

/// Text from elsewhere (a provider's error description, a token type, a scenario name) made safe
/// to print on one line of a terminal or to put in an XML file: control characters (C0, DEL,
/// C1) and the bidirectional overrides that reorder what a reader sees become visible escapes
/// (`\u{1B}`), so a provider can neither move the cursor, forge a line nor make invalid XML.
enum TerminalText {
    static func neutralized(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) {
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control || (0x202A...0x202E).contains(scalar.value)
            || (0x2066...0x2069).contains(scalar.value) || scalar.value == 0x200E || scalar.value == 0x200F
    }
}
