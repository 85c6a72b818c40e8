/// Reads a DNS message's wire format (RFC 1035 §4): integers, and names with compression
/// pointers. Names are host names: labels of printable ASCII other than the dot. A pointer must point before the name that uses it, and at most 64 are followed
/// for one name, so no message can make the reader loop.
struct DNSMessageReader {
    let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var remaining: Int { bytes.count - offset }

    mutating func u8() throws(DNSMessageError) -> UInt8 {
        guard offset < bytes.count else { throw .truncated }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func u16() throws(DNSMessageError) -> UInt16 {
        guard remaining >= 2 else { throw .truncated }
        defer { offset += 2 }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    mutating func u32() throws(DNSMessageError) -> UInt32 {
        UInt32(try u16()) << 16 | UInt32(try u16())
    }

    mutating func take(_ count: Int) throws(DNSMessageError) -> [UInt8] {
        guard count >= 0, remaining >= count else { throw .truncated }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    /// A name at the current offset, in lower case without the final dot ("" for the root).
    mutating func name() throws(DNSMessageError) -> String {
        let (name, end) = try Self.name(in: bytes, at: offset)
        offset = end
        return name
    }

    /// The name that starts at `start` and the offset just after it (after its first pointer,
    /// when compressed).
    static func name(in bytes: [UInt8], at start: Int) throws(DNSMessageError) -> (String, Int) {
        var labels: [String] = []
        var position = start
        var end: Int?
        var jumps = 0
        var length = 0
        while true {
            guard position < bytes.count else { throw .truncated }
            let byte = bytes[position]
            switch byte & 0xC0 {
            case 0x00:
                let count = Int(byte)
                if count == 0 {
                    return (labels.joined(separator: "."), end ?? position + 1)
                }
                guard position + 1 + count <= bytes.count else { throw .truncated }
                length += count + 1
                guard length <= 255 else { throw .badName("longer than 255 bytes") }
                let label = bytes[(position + 1)..<(position + 1 + count)]
                // Host names are printable ASCII; a dot inside a label would read as two labels.
                guard label.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x2E }) else {
                    throw .badName("a label with a byte host names do not use")
                }
                labels.append(String(decoding: label.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self))
                position += 1 + count
            case 0xC0:
                guard position + 1 < bytes.count else { throw .truncated }
                let target = Int(byte & 0x3F) << 8 | Int(bytes[position + 1])
                if end == nil { end = position + 2 }
                // Only backwards: a pointer to itself or ahead could loop.
                guard target < position, jumps < 64 else { throw .badName("compression pointer loop") }
                jumps += 1
                position = target
            default:
                throw .badName("reserved label type 0x\(String(byte, radix: 16))")
            }
        }
    }
}
