import Foundation
import WireFormat

/// This module's reader: a `WireReader` over the received bytes whose reads name what they read,
/// so running out of input becomes `ObliviousHTTPError(.truncated, ...)` saying where.
struct ByteReader {
    private var wire: WireReader<Data>

    init(_ bytes: [UInt8]) { self.init(Data(bytes)) }

    /// Reads `data` in place, a slice included (offsets count from its own start index).
    init(_ data: Data) { wire = WireReader(data) }

    var offset: Int { wire.offset }
    var remaining: Int { wire.remaining }
    var isAtEnd: Bool { wire.isAtEnd }

    mutating func readByte(_ what: @autoclosure () -> String) throws(ObliviousHTTPError) -> UInt8 {
        do { return try wire.u8() } catch { throw Self.truncated(error, what()) }
    }

    mutating func readUInt16(_ what: @autoclosure () -> String) throws(ObliviousHTTPError) -> UInt16 {
        do { return try wire.u16() } catch { throw Self.truncated(error, what()) }
    }

    /// A QUIC variable-length integer (RFC 9000 Section 16); non-minimal encodings are accepted,
    /// as RFC 9292 allows.
    mutating func readVarint(_ what: @autoclosure () -> String) throws(ObliviousHTTPError) -> UInt64 {
        do { return try wire.varint() } catch { throw Self.truncated(error, what()) }
    }

    /// `count` bytes; `count` may come straight from the wire, so it is checked before use.
    mutating func readBytes(_ count: Int, _ what: @autoclosure () -> String) throws(ObliviousHTTPError) -> [UInt8] {
        Array(try take(count, what()))
    }

    /// `count` bytes as `Data` indexed from 0 (large content, or a section read by a reader of its own).
    mutating func readData(_ count: Int, _ what: @autoclosure () -> String) throws(ObliviousHTTPError) -> Data {
        Data(try take(count, what()))
    }

    private mutating func take(_ count: Int, _ what: @autoclosure () -> String) throws(ObliviousHTTPError) -> Data {
        do {
            return try wire.take(count)
        } catch {
            throw ObliviousHTTPError(.truncated, "\(what()) needs \(count) bytes but \(remaining) remain")
        }
    }

    /// The rest of the input.
    mutating func readRemaining() -> [UInt8] { Array(wire.rest()) }

    /// Whether every remaining byte is zero (padding), without consuming anything.
    var remainingBytesAreZero: Bool {
        wire.bytes[wire.offset...].allSatisfy { $0 == 0 }
    }

    /// The one place a wire-format truncation becomes this module's error.
    private static func truncated(_ error: WireFormatError, _ what: String) -> ObliviousHTTPError {
        guard case .truncated(_, let remaining) = error, remaining > 0 else {
            return ObliviousHTTPError(.truncated, "input ends before \(what)")
        }
        return ObliviousHTTPError(.truncated, "input ends inside \(what)")
    }
}
