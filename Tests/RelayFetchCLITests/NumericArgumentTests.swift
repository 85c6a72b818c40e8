import XCTest
@testable import RelayFetchCLI

/// The one checked parser of the numbers options take.
final class NumericArgumentTests: XCTestCase {
    /// The parser accepts what the options always took, plus T; the bounds are inclusive.
    func testTheCheckedParserReadsByteCountsDurationsAndCounts() throws {
        XCTAssertEqual(try NumericArgument.byteCount("1048576", option: "--x"), 1_048_576)
        XCTAssertEqual(try NumericArgument.byteCount("512k", option: "--x"), 512 << 10)
        XCTAssertEqual(try NumericArgument.byteCount("100M", option: "--x"), 100 << 20)
        XCTAssertEqual(try NumericArgument.byteCount("1g", option: "--x"), 1 << 30)
        XCTAssertEqual(try NumericArgument.byteCount("3T", option: "--x"), 3 << 40)
        XCTAssertEqual(try NumericArgument.byteCount("1024T", option: "--x"), 1 << 50)
        XCTAssertEqual(try NumericArgument.byteCount("0", option: "--x"), 0)
        XCTAssertThrowsError(try NumericArgument.byteCount("1025T", option: "--x"))
        XCTAssertThrowsError(try NumericArgument.byteCount("1K", option: "--x", in: 2048...4096))
        XCTAssertEqual(try NumericArgument.seconds("1.5", option: "--x"), 1.5)
        XCTAssertEqual(try NumericArgument.seconds("0", option: "--x", allowsZero: true), 0)
        XCTAssertThrowsError(try NumericArgument.seconds("0", option: "--x"))
        XCTAssertEqual(try NumericArgument.seconds("31536000", option: "--x"), 31_536_000)
        XCTAssertThrowsError(try NumericArgument.seconds("31536001", option: "--x"))
        XCTAssertEqual(try NumericArgument.count("7", option: "--x", in: 0...7), 7)
        XCTAssertThrowsError(try NumericArgument.count("+7", option: "--x", in: 0...7))
        XCTAssertThrowsError(try NumericArgument.count("٣", option: "--x", in: 0...7), "a non-ASCII digit")
        XCTAssertThrowsError(try NumericArgument.count("８", option: "--x", in: 0...9), "a full-width digit")
        do {
            _ = try NumericArgument.byteCount("9999999999G", option: "--max-bytes", in: 1...(1 << 50))
            XCTFail("no error")
        } catch {
            XCTAssertEqual("\(error)", "--max-bytes needs a byte count from 1 to 1024T (digits with an optional K, M, G or T suffix, "
                                      + "powers of 1024), not \"9999999999G\"")
        }
    }
}
