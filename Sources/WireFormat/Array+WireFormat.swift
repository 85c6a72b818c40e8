extension Array where Element == UInt8 {
    /// Appends `value` in network byte order (big-endian), `bitWidth / 8` bytes.
    @inlinable
    package mutating func appendBigEndian<Value: FixedWidthInteger & UnsignedInteger>(_ value: Value) {
        for shift in stride(from: Value.bitWidth - 8, through: 0, by: -8) {
            append(UInt8(truncatingIfNeeded: value >> shift))
        }
    }

    /// Appends `value` as a QUIC variable-length integer (RFC 9000 §16) in its shortest form;
    /// throws `.varintOutOfRange` above 2^62 - 1, appending nothing.
    @inlinable
    package mutating func appendVarint(_ value: UInt64) throws(WireFormatError) {
        switch QUICVarint.encodedLength(of: value) {
        case 1: append(UInt8(value))
        case 2: appendBigEndian(UInt16(value) | 0x4000)
        case 4: appendBigEndian(UInt32(value) | 0x8000_0000)
        case 8: appendBigEndian(value | 0xC000_0000_0000_0000)
        default: throw .varintOutOfRange(value)
        }
    }

    /// Appends a count of bytes held in memory as a QUIC variable-length integer. Such a count
    /// always fits (address spaces are far below 2^62 bytes), so this cannot fail.
    @inlinable
    package mutating func appendVarint(count: Int) {
        do {
            try appendVarint(UInt64(count))
        } catch {
            preconditionFailure("a byte count of \(count) has no QUIC varint")
        }
    }
}

extension FixedWidthInteger where Self: UnsignedInteger {
    /// The value in network byte order (I2OSP(value, bitWidth / 8)), for building byte strings.
    @inlinable
    package var bigEndianBytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.bitWidth / 8)
        bytes.appendBigEndian(self)
        return bytes
    }
}
