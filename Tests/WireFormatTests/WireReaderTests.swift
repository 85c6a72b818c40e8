import XCTest
import WireFormat

final class WireReaderTests: XCTestCase {
    /// One of each read, in order, over a message that holds exactly them.
    private static let message: [UInt8] = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
                                           0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F,
                                           0x7B, 0xBD,  // varint 15293
                                           0xAA, 0xBB, 0xCC, 0xDD]  // 3 taken, 1 rest

    private struct Reads: Equatable {
        var u8: UInt8, u16: UInt16, u32: UInt32, u64: UInt64, varint: UInt64, taken: [UInt8], rest: [UInt8]
    }

    private static func readAll<Bytes>(_ reader: inout WireReader<Bytes>) throws(WireFormatError) -> Reads {
        Reads(u8: try reader.u8(), u16: try reader.u16(), u32: try reader.u32(), u64: try reader.u64(),
              varint: try reader.varint(), taken: Array(try reader.take(3)), rest: Array(reader.rest()))
    }

    func testReadsBigEndianIntegersVarintsAndSlices() throws {
        var reader = WireReader(Self.message)
        XCTAssertEqual(reader.remaining, Self.message.count)
        XCTAssertEqual(try Self.readAll(&reader),
                       Reads(u8: 0x01, u16: 0x0203, u32: 0x0405_0607, u64: 0x0809_0A0B_0C0D_0E0F,
                             varint: 15293, taken: [0xAA, 0xBB, 0xCC], rest: [0xDD]))
        XCTAssertTrue(reader.isAtEnd)
        XCTAssertEqual(reader.remaining, 0)
        XCTAssertEqual(Array(reader.rest()), [])
    }

    /// Cut the message after every byte: the read that runs out throws `.truncated` saying how many
    /// bytes it needed and how many were left, and nothing before it fails.
    func testTruncationAtEveryPosition() {
        let reads: [(name: String, size: Int)] = [("u8", 1), ("u16", 2), ("u32", 4), ("u64", 8), ("varint", 2), ("take", 3)]
        for cut in 0..<Self.message.count - 1 {
            var reader = WireReader(Array(Self.message.prefix(cut)))
            var consumed = 0
            var failed: String?
            for read in reads {
                do throws(WireFormatError) {
                    switch read.name {
                    case "u8": _ = try reader.u8()
                    case "u16": _ = try reader.u16()
                    case "u32": _ = try reader.u32()
                    case "u64": _ = try reader.u64()
                    case "varint": _ = try reader.varint()
                    default: _ = try reader.take(3)
                    }
                    consumed += read.size
                } catch {
                    let remaining = cut - consumed
                    // A varint needs its first byte before its length is known.
                    let needed = read.name == "varint" && remaining == 0 ? 1 : read.size
                    XCTAssertEqual(error, .truncated(needed: needed, remaining: remaining), "cut at \(cut), reading \(read.name)")
                    XCTAssertEqual(reader.offset, consumed, "a failed read consumes nothing (cut at \(cut))")
                    failed = read.name
                    break
                }
            }
            XCTAssertNotNil(failed, "a message cut at \(cut) read whole")
            XCTAssertLessThanOrEqual(consumed, cut)
        }
    }

    func testTakeRefusesNegativeAndOversizedCounts() {
        var reader = WireReader([UInt8](repeating: 0, count: 4))
        XCTAssertThrowsError(try reader.take(-1)) { XCTAssertEqual($0 as? WireFormatError, .truncated(needed: -1, remaining: 4)) }
        XCTAssertThrowsError(try reader.take(Int.max)) { XCTAssertEqual($0 as? WireFormatError, .truncated(needed: Int.max, remaining: 4)) }
        XCTAssertEqual(try reader.take(0).count, 0)
        XCTAssertEqual(try reader.take(4).count, 4)
        XCTAssertTrue(reader.isAtEnd)
    }

    /// A reader over a slice or a `Data` that does not start at index 0 reads the slice only,
    /// without copying it, and reports offsets as indices of the slice.
    func testReadsSlicesInPlace() throws {
        let whole: [UInt8] = [0xFF, 0xFF, 0x00, 0x2A, 0x41, 0x42, 0xFF]
        var slice = WireReader(whole[2..<6])
        XCTAssertEqual(slice.offset, 2)
        XCTAssertEqual(try slice.u16(), 42)
        let taken = try slice.take(2)
        XCTAssertEqual(taken.startIndex, 4, "the slice shares the array's indices")
        XCTAssertEqual(Array(taken), [0x41, 0x42])
        XCTAssertThrowsError(try slice.u8()) { XCTAssertEqual($0 as? WireFormatError, .truncated(needed: 1, remaining: 0)) }

        let data = Data(whole)[3...]
        var reader = WireReader(data)
        XCTAssertEqual(try reader.u8(), 0x2A)
        XCTAssertEqual(reader.remaining, 3)
        XCTAssertEqual(Array(reader.rest()), [0x41, 0x42, 0xFF])
    }

    func testStartsAtAGivenOffsetClampedIntoTheBytes() throws {
        let bytes: [UInt8] = [1, 2, 3]
        var reader = WireReader(bytes, from: 2)
        XCTAssertEqual(try reader.u8(), 3)
        XCTAssertTrue(WireReader(bytes, from: 9).isAtEnd)
        XCTAssertEqual(WireReader(bytes, from: -4).offset, 0)
    }
}
