import WireFormat

/// Reads a DNS message's wire format (RFC 1035 §4): integers, and names with compression
/// pointers. Names are host names: labels of printable ASCII other than the dot. A pointer must point before the name that uses it, and at most 64 are followed
/// for one name, so no message can make the reader loop.
struct DNSMessageReader {
    private var wire: WireReader<[UInt8]>

    init(_ bytes: [UInt8]) { wire = WireReader(bytes) }

    var bytes: [UInt8] { wire.bytes }
    var offset: Int { wire.offset }
    var remaining: Int { wire.remaining }

    // Running out of bytes is the one way a WireReader read fails; DNS calls that `.truncated`.
    mutating func u8() throws(ResolutionError) -> UInt8 {
        do { return try wire.u8() } catch { throw .truncated }
    }

    mutating func u16() throws(ResolutionError) -> UInt16 {
        do { return try wire.u16() } catch { throw .truncated }
    }

    mutating func u32() throws(ResolutionError) -> UInt32 {
        do { return try wire.u32() } catch { throw .truncated }
    }

    mutating func take(_ count: Int) throws(ResolutionError) -> [UInt8] {
        do { return Array(try wire.take(count)) } catch { throw .truncated }
    }

    /// A name at the current offset, in lower case without the final dot ("" for the root).
    mutating func name() throws(ResolutionError) -> String {
        let (name, end) = try Self.name(in: bytes, at: offset)
        // `end` lies within the message (name(in:at:) checked), so this only moves past the name.
        do { _ = try wire.take(end - offset) } catch { throw .truncated }
        return name
    }

    /// The name that starts at `start` and the offset just after it (after its first pointer,
    /// when compressed).
    static func name(in bytes: [UInt8], at start: Int) throws(ResolutionError) -> (String, Int) {
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
