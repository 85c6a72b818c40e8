import Foundation
/// A cursor over received bytes. Every read checks the remaining length first, so a length field
/// pointing past the end becomes `.truncated` instead of a trap.
struct ByteReader {
    private let bytes: Data  // indexed from 0
    private(set) var offset: Int
    private let end: Int

    init(_ bytes: [UInt8]) { self.init(Data(bytes)) }

    /// Reads `data` in place (a slice is copied once, to index it from 0).
    init(_ data: Data) {
        bytes = data.startIndex == 0 ? data : Data(data)
        offset = 0
        end = data.count
    }

    var remaining: Int { end - offset }
    var isAtEnd: Bool { offset == end }

    mutating func readByte(_ what: @autoclosure () -> String) throws(ObliviousHTTPError) -> UInt8 {
        guard offset < end else { throw ObliviousHTTPError(.truncated, "input ends before \(what())") }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func readUInt16(_ what: @autoclosure () -> String) throws(ObliviousHTTPError) -> UInt16 {
        guard remaining >= 2 else { throw ObliviousHTTPError(.truncated, "input ends inside \(what())") }
        defer { offset += 2 }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    /// `count` bytes; `count` may come straight from the wire, so it is checked before use.
    mutating func readBytes(_ count: Int, _ what: @autoclosure () -> String) throws(ObliviousHTTPError) -> [UInt8] {
        Array(bytes[try take(count, what())])
    }

    /// `count` bytes as `Data` indexed from 0 (large content, or a section read by a reader of its own).
    mutating func readData(_ count: Int, _ what: @autoclosure () -> String) throws(ObliviousHTTPError) -> Data {
        Data(bytes[try take(count, what())])
    }

    /// The range of the next `count` bytes, consumed; `.truncated` when fewer remain.
    private mutating func take(_ count: Int, _ what: @autoclosure () -> String) throws(ObliviousHTTPError) -> Range<Int> {
        guard count >= 0, count <= remaining else {
            throw ObliviousHTTPError(.truncated, "\(what()) needs \(count) bytes but \(remaining) remain")
        }
        defer { offset += count }
        return offset..<offset + count
    }

    /// The rest of the input.
    mutating func readRemaining() -> [UInt8] {
        defer { offset = end }
        return Array(bytes[offset..<end])
    }

    /// A QUIC variable-length integer (RFC 9000 Section 16): the top two bits of the first byte
    /// give the length, 1, 2, 4 or 8 bytes. Non-minimal encodings are accepted, as RFC 9292 allows.
    mutating func readVarint(_ what: @autoclosure () -> String) throws(ObliviousHTTPError) -> UInt64 {
        guard offset < end else { throw ObliviousHTTPError(.truncated, "input ends before \(what())") }
        let length = 1 << Int(bytes[offset] >> 6)
        guard remaining >= length else { throw ObliviousHTTPError(.truncated, "input ends inside \(what())") }
        var value = UInt64(bytes[offset] & 0x3f)
        for index in 1..<length {
            value = value << 8 | UInt64(bytes[offset + index])
        }
        offset += length
        return value
    }

    /// Whether every remaining byte is zero (padding), without consuming anything.
    var remainingBytesAreZero: Bool {
        var index = offset
        while index < end {
            if bytes[index] != 0 { return false }
            index += 1
        }
        return true
    }
}
