/// A response's status line (RFC 9112 §4), the one parser of them: libcurl's lines for every
/// response and for the answer to its own CONNECT, and our HTTP/1.1 CONNECT hop's answer. No I/O.
package struct StatusLine: Equatable, Sendable {
    /// "HTTP/1.0", "HTTP/1.1", "HTTP/2" or "HTTP/3" ("HTTP/2.0" reads as "HTTP/2", as libcurl writes it).
    package let version: String
    /// Three digits, 100...599 (RFC 9110 §15).
    package let status: Int
    /// The reason phrase, possibly empty.
    package let reason: String

    /// nil unless `line` is `HTTP/DIGIT[.DIGIT] SP 3DIGIT [SP reason]`, with an optional line end.
    package init?(_ line: some StringProtocol) {
        var text = Substring(line)
        while let last = text.last, last == "\r\n" || last == "\n" || last == "\r" { text = text.dropLast() }
        let parts = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, let version = Self.version(parts[0]), let status = Self.statusCode(parts[1]) else { return nil }
        self.version = version
        self.status = status
        reason = parts.count > 2 ? String(parts[2]) : ""
    }

    package init(version: String, status: Int, reason: String) {
        self.version = version
        self.status = status
        self.reason = reason
    }

    /// Whether the status is a 2xx one.
    package var isSuccess: Bool { (200..<300).contains(status) }

    /// "HTTP/" DIGIT, then "." DIGIT for 1.x; 2 and 3 without a minor version (a ".0" is dropped).
    private static func version(_ text: Substring) -> String? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 6, text.hasPrefix("HTTP/"), isDigit(bytes[5]) else { return nil }
        switch bytes.count {
        case 6: return bytes[5] == UInt8(ascii: "1") ? nil : String(text)
        case 8 where bytes[6] == UInt8(ascii: ".") && isDigit(bytes[7]):
            return bytes[5] == UInt8(ascii: "1") || bytes[7] != UInt8(ascii: "0") ? String(text) : String(text.dropLast(2))
        default: return nil
        }
    }

    /// Exactly three digits in 100...599 (RFC 9110 §15); `Int` alone would take "+20" or "-99",
    /// and 600...999 are not HTTP status codes.
    private static func statusCode(_ text: Substring) -> Int? {
        guard text.utf8.count == 3, text.utf8.allSatisfy(isDigit), let status = Int(text), (100...599).contains(status) else { return nil }
        return status
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
}
