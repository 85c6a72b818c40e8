/// HTTP Datagrams of a CONNECT-UDP stream (RFC 9298) carried as DATAGRAM capsules (RFC 9297
/// §3.5) in the stream's DATA: type 0x00, varint length, then context ID 0 and one UDP payload.
/// nghttp3 0.8 cannot announce SETTINGS_H3_DATAGRAM, so relays answer with capsules too.
/// A pure state machine: stream bytes in, UDP payloads out. Other capsule types and context IDs
/// are skipped, as the RFCs require.
struct ConnectUDPCapsuleCodec {
    private static let datagramCapsule: UInt64 = 0x00
    /// A capsule longer than this is a protocol error, not something to buffer.
    static let maximumCapsule = 64 * 1024

    private var buffer: [UInt8] = []
    private var start = 0

    enum DecodeError: Error, Equatable { case capsuleTooLarge(UInt64) }

    /// The capsule that carries `payload` as a UDP payload with context ID 0.
    static func encode(_ payload: UnsafeRawBufferPointer) -> [UInt8] {
        var capsule: [UInt8] = []
        capsule.reserveCapacity(payload.count + 10)
        append(payload, to: &capsule)
        return capsule
    }

    /// Appends the capsule that carries `payload` (context ID 0) to `bytes`.
    static func append(_ payload: UnsafeRawBufferPointer, to bytes: inout [UInt8]) {
        appendVarint(datagramCapsule, to: &bytes)
        appendVarint(UInt64(payload.count + 1), to: &bytes)
        bytes.append(0)  // context ID 0: the UDP payload itself
        bytes.append(contentsOf: payload)
    }

    /// Adds stream bytes; returns the UDP payloads of the capsules now complete.
    mutating func decode(_ bytes: [UInt8]) throws(DecodeError) -> [[UInt8]] {
        buffer += bytes
        var payloads: [[UInt8]] = []
        while true {
            var offset = start
            guard let type = Self.readVarint(buffer, &offset), let length = Self.readVarint(buffer, &offset) else { break }
            guard length <= UInt64(Self.maximumCapsule) else { throw .capsuleTooLarge(length) }
            guard buffer.count - offset >= Int(length) else { break }
            let value = offset..<offset + Int(length)
            start = value.upperBound
            guard type == Self.datagramCapsule else { continue }
            var inner = value.lowerBound
            guard let context = Self.readVarint(buffer, &inner), context == 0, inner <= value.upperBound else { continue }
            payloads.append(Array(buffer[inner..<value.upperBound]))
        }
        if start > 0 && (start == buffer.count || start > 64 * 1024) {
            buffer.removeFirst(start)
            start = 0
        }
        return payloads
    }

    static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        switch value {
        case ..<0x40: bytes.append(UInt8(value))
        case ..<0x4000: bytes += [UInt8(0x40 | value >> 8), UInt8(truncatingIfNeeded: value)]
        case ..<0x4000_0000: bytes += (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) | ($0 == 3 ? 0x80 : 0) }
        default: bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) | ($0 == 7 ? 0xC0 : 0) }
        }
    }

    /// A QUIC varint (RFC 9000 §16) at `offset`, advancing it; nil when the bytes end first.
    static func readVarint(_ bytes: [UInt8], _ offset: inout Int) -> UInt64? {
        guard offset < bytes.count else { return nil }
        let length = 1 << Int(bytes[offset] >> 6)
        guard bytes.count - offset >= length else { return nil }
        var value = UInt64(bytes[offset] & 0x3F)
        for index in 1..<length { value = value << 8 | UInt64(bytes[offset + index]) }
        offset += length
        return value
    }
}
