/// A cursor over received bytes for binary wire formats (DNS, capsules, Binary HTTP, OHTTP).
/// Every read checks the remaining length first, so a length field pointing past the end becomes
/// `.truncated` instead of a trap. Generic and inlinable so that each parser gets a specialised
/// copy over its own storage (`[UInt8]`, `ArraySlice<UInt8>`, `Data`) without copying it:
/// `offset` is an index of `bytes`, which need not start at 0.
@usableFromInline
package struct WireReader<Bytes: RandomAccessCollection<UInt8>> where Bytes.Index == Int {
    /// All the bytes, read or not (DNS names point back into the whole message).
    @usableFromInline package let bytes: Bytes
    /// The index of the next byte to read.
    @usableFromInline package private(set) var offset: Int

    @inlinable
    package init(_ bytes: Bytes) {
        self.bytes = bytes
        offset = bytes.startIndex
    }

    /// A reader that starts at `offset` (clamped into the bytes), for a parser that keeps a
    /// buffer and the position it has consumed up to.
    @inlinable
    package init(_ bytes: Bytes, from offset: Int) {
        self.bytes = bytes
        self.offset = min(max(offset, bytes.startIndex), bytes.endIndex)
    }

    @inlinable package var remaining: Int { bytes.endIndex - offset }
    @inlinable package var isAtEnd: Bool { offset == bytes.endIndex }

    @inlinable
    package mutating func u8() throws(WireFormatError) -> UInt8 {
        guard offset < bytes.endIndex else { throw .truncated(needed: 1, remaining: 0) }
        defer { offset += 1 }
        return bytes[offset]
    }

    @inlinable
    package mutating func u16() throws(WireFormatError) -> UInt16 { try bigEndian(UInt16.self) }

    @inlinable
    package mutating func u32() throws(WireFormatError) -> UInt32 { try bigEndian(UInt32.self) }

    @inlinable
    package mutating func u64() throws(WireFormatError) -> UInt64 { try bigEndian(UInt64.self) }

    /// The next `count` bytes, consumed; `count` may come straight from the wire (negative or
    /// huge), so it is checked before use. The slice shares the reader's storage.
    @inlinable
    package mutating func take(_ count: Int) throws(WireFormatError) -> Bytes.SubSequence {
        guard count >= 0, count <= remaining else { throw .truncated(needed: count, remaining: remaining) }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    /// Everything not yet read, consumed.
    @inlinable
    package mutating func rest() -> Bytes.SubSequence {
        defer { offset = bytes.endIndex }
        return bytes[offset...]
    }

    /// A QUIC variable-length integer (RFC 9000 §16). Non-minimal encodings are accepted, as
    /// RFC 9000 and RFC 9292 allow; nothing is consumed when it is truncated.
    @inlinable
    package mutating func varint() throws(WireFormatError) -> UInt64 {
        guard offset < bytes.endIndex else { throw .truncated(needed: 1, remaining: 0) }
        let length = QUICVarint.encodedLength(firstByte: bytes[offset])
        guard remaining >= length else { throw .truncated(needed: length, remaining: remaining) }
        var value = UInt64(bytes[offset] & 0x3F)
        for index in offset + 1..<offset + length {
            value = value << 8 | UInt64(bytes[index])
        }
        offset += length
        return value
    }

    @inlinable
    mutating func bigEndian<Value: FixedWidthInteger & UnsignedInteger>(_: Value.Type) throws(WireFormatError) -> Value {
        let size = Value.bitWidth / 8
        guard remaining >= size else { throw .truncated(needed: size, remaining: remaining) }
        var value: Value = 0
        for index in offset..<offset + size {
            value = value << 8 | Value(bytes[index])
        }
        offset += size
        return value
    }
}
