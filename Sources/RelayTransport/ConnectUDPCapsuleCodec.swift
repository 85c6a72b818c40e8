import WireFormat

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
        bytes.append(UInt8(datagramCapsule))  // type 0x00, a one-byte varint
        bytes.appendVarint(count: payload.count + 1)
        bytes.append(0)  // context ID 0: the UDP payload itself
        bytes.append(contentsOf: payload)
    }

    /// Adds stream bytes; returns the UDP payloads of the capsules now complete.
    mutating func decode(_ bytes: [UInt8]) throws(DecodeError) -> [[UInt8]] {
        buffer += bytes
        let payloads = try decodeComplete()
        if start > 0 && (start == buffer.count || start > 64 * 1024) {
            buffer.removeFirst(start)
            start = 0
        }
        return payloads
    }

    /// The payloads of the complete capsules from `start` on, moving `start` past them. The
    /// reader shares `buffer` and ends with this call, so trimming the buffer afterwards copies
    /// nothing.
    private mutating func decodeComplete() throws(DecodeError) -> [[UInt8]] {
        var reader = WireReader(buffer, from: start)
        var payloads: [[UInt8]] = []
        while true {
            // A capsule not complete yet: wait for more bytes.
            guard let type = try? reader.varint(), let length = try? reader.varint() else { break }
            guard length <= UInt64(Self.maximumCapsule) else { throw .capsuleTooLarge(length) }
            guard let value = try? reader.take(Int(length)) else { break }
            start = reader.offset
            guard type == Self.datagramCapsule else { continue }
            var inner = WireReader(value)
            guard let context = try? inner.varint(), context == 0 else { continue }
            payloads.append(Array(inner.rest()))
        }
        return payloads
    }
}
