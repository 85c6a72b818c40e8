extension UInt16 {
    /// I2OSP(value, 2).
    var bigEndianBytes: [UInt8] { [UInt8(self >> 8), UInt8(truncatingIfNeeded: self)] }

    /// Four lowercase hex digits, for messages.
    var hex4: String {
        let digits = String(self, radix: 16)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }
}
