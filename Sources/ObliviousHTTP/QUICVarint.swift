/// Writing QUIC variable-length integers (RFC 9000 Section 16), always in the shortest form.
enum QUICVarint {
    /// The largest value the encoding can carry, 2^62 - 1.
    static let maximum: UInt64 = (1 << 62) - 1

    static func append(_ value: UInt64, to output: inout [UInt8]) throws(ObliviousHTTPError) {
        switch value {
        case 0..<(1 << 6):
            output.append(UInt8(value))
        case (1 << 6)..<(1 << 14):
            output.append(0x40 | UInt8(value >> 8))
            output.append(UInt8(truncatingIfNeeded: value))
        case (1 << 14)..<(1 << 30):
            output.append(0x80 | UInt8(value >> 24))
            for shift in stride(from: 16, through: 0, by: -8) {
                output.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            }
        case (1 << 30)...maximum:
            output.append(0xc0 | UInt8(value >> 56))
            for shift in stride(from: 48, through: 0, by: -8) {
                output.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            }
        default:
            throw ObliviousHTTPError(.limitExceeded, "\(value) is too large for a variable-length integer")
        }
    }

    static func append(length: Int, to output: inout [UInt8]) throws(ObliviousHTTPError) {
        try append(UInt64(length), to: &output)
    }
}
