extension UInt16 {
    /// Four lowercase hex digits, for messages.
    var hex4: String {
        let digits = String(self, radix: 16)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }
}
