/// QUIC variable-length integers (RFC 9000 §16): the top two bits of the first byte give the
/// length, 1, 2, 4 or 8 bytes; the other bits and bytes are the value, big-endian.
@usableFromInline
package enum QUICVarint {
    /// The largest value the encoding can carry, 2^62 - 1.
    @usableFromInline package static let maximum: UInt64 = (1 << 62) - 1

    /// The length of the shortest encoding of `value`; nil above `maximum`.
    @inlinable
    package static func encodedLength(of value: UInt64) -> Int? {
        switch value {
        case ..<(1 << 6): return 1
        case ..<(1 << 14): return 2
        case ..<(1 << 30): return 4
        case ...maximum: return 8
        default: return nil
        }
    }

    /// The length of the encoding that starts with `firstByte`.
    @inlinable
    package static func encodedLength(firstByte: UInt8) -> Int { 1 << Int(firstByte >> 6) }
}
