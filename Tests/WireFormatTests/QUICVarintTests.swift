import XCTest
import WireFormat

final class QUICVarintTests: XCTestCase {
    /// The boundaries of each length (RFC 9000 §16): the largest value of one length and the
    /// smallest of the next, with their shortest encodings.
    private static let boundaries: [(value: UInt64, encoding: [UInt8])] = [
        (0, [0x00]),
        (63, [0x3F]),
        (64, [0x40, 0x40]),
        (16383, [0x7F, 0xFF]),
        (16384, [0x80, 0x00, 0x40, 0x00]),
        ((1 << 30) - 1, [0xBF, 0xFF, 0xFF, 0xFF]),
        (1 << 30, [0xC0, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00]),
        ((1 << 62) - 1, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
    ]

    func testWritesTheShortestFormAtEveryBoundary() throws {
        for (value, encoding) in Self.boundaries {
            var bytes: [UInt8] = []
            try bytes.appendVarint(value)
            XCTAssertEqual(bytes, encoding, "\(value)")
            XCTAssertEqual(QUICVarint.encodedLength(of: value), encoding.count, "\(value)")
            if value <= UInt64(Int.max) {
                var counted: [UInt8] = []
                counted.appendVarint(count: Int(value))
                XCTAssertEqual(counted, encoding, "\(value) as a count")
            }
        }
    }

    func testReadsBackEveryBoundary() throws {
        for (value, encoding) in Self.boundaries {
            var reader = WireReader(encoding)
            XCTAssertEqual(try reader.varint(), value)
            XCTAssertTrue(reader.isAtEnd)
        }
    }

    /// RFC 9000 §A.1's examples, including a non-minimal one (37 in two bytes), which readers accept.
    func testReadsTheRFCExamplesAndNonMinimalEncodings() throws {
        let examples: [([UInt8], UInt64)] = [
            ([0xC2, 0x19, 0x7C, 0x5E, 0xFF, 0x14, 0xE8, 0x8C], 151_288_809_941_952_652),
            ([0x9D, 0x7F, 0x3E, 0x7D], 494_878_333),
            ([0x7B, 0xBD], 15293),
            ([0x25], 37),
            ([0x40, 0x25], 37),
            ([0x80, 0x00, 0x00, 0x25], 37),
            ([0xC0, 0, 0, 0, 0, 0, 0, 0x25], 37),
        ]
        for (encoding, value) in examples {
            var reader = WireReader(encoding)
            XCTAssertEqual(try reader.varint(), value, "\(encoding)")
        }
    }

    func testRefusesValuesAboveTheMaximum() {
        XCTAssertEqual(QUICVarint.maximum, (1 << 62) - 1)
        for value: UInt64 in [1 << 62, UInt64.max] {
            var bytes: [UInt8] = [0x99]
            XCTAssertThrowsError(try bytes.appendVarint(value)) { XCTAssertEqual($0 as? WireFormatError, .varintOutOfRange(value)) }
            XCTAssertEqual(bytes, [0x99], "nothing appended")
            XCTAssertNil(QUICVarint.encodedLength(of: value))
        }
    }

    /// Every proper prefix of an encoding is truncated, and says how long the varint is.
    func testTruncatedVarints() {
        for (_, encoding) in Self.boundaries {
            for cut in 0..<encoding.count {
                var reader = WireReader(Array(encoding.prefix(cut)))
                XCTAssertThrowsError(try reader.varint()) {
                    XCTAssertEqual($0 as? WireFormatError, .truncated(needed: cut == 0 ? 1 : encoding.count, remaining: cut))
                }
                XCTAssertEqual(reader.offset, 0)
            }
        }
    }

    func testBigEndianWriting() {
        var bytes: [UInt8] = []
        bytes.appendBigEndian(UInt8(0x01))
        bytes.appendBigEndian(UInt16(0x0203))
        bytes.appendBigEndian(UInt32(0x0405_0607))
        bytes.appendBigEndian(UInt64(0x0809_0A0B_0C0D_0E0F))
        XCTAssertEqual(bytes, Array(1...15))
        XCTAssertEqual(UInt16(0xABCD).bigEndianBytes, [0xAB, 0xCD])
    }
}
