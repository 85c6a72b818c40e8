/// Fast checks over the UTF-8 of CSS values, which the cascade runs for every box: Foundation's
/// `contains`, `trimmingCharacters` and `range(of:)` go through NSString and cost more than the
/// matching itself on large pages.
extension StringProtocol {
    /// True when the ASCII `needle` occurs, comparing ASCII letters without case.
    func containsASCIICaseInsensitive(_ needle: StaticString) -> Bool {
        let count = needle.utf8CodeUnitCount
        guard count > 0 else { return true }
        let wanted = UnsafeBufferPointer(start: needle.utf8Start, count: count)
        let bytes = Array(utf8)
        guard bytes.count >= count else { return false }
        outer: for start in 0...(bytes.count - count) {
            for offset in 0..<count where Self.lower(bytes[start + offset]) != wanted[offset] { continue outer }
            return true
        }
        return false
    }

    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C }
    private static func lower(_ byte: UInt8) -> UInt8 { (65...90).contains(byte) ? byte + 32 : byte }
}

extension String {
    /// The text without leading and trailing ASCII whitespace (CSS whitespace).
    var trimmingCSSWhitespace: String {
        let bytes = utf8
        guard let first = bytes.firstIndex(where: { !Self.isSpace($0) }), let last = bytes.lastIndex(where: { !Self.isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
