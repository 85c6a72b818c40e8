import XCTest
@testable import RelayTransport

/// The send buffer in memory: chunks go out once, in order, and stay until acknowledged.
final class HTTP3SendBufferTests: XCTestCase {
    func testChunksAreHandedOutOnceInOrder() {
        let buffer = HTTP3SendBuffer()
        XCTAssertFalse(buffer.hasUnsent)
        buffer.append([1, 2, 3])
        buffer.append([])
        buffer.append([4, 5])
        buffer.append([6])
        XCTAssertTrue(buffer.hasUnsent)
        XCTAssertEqual(buffer.handOut(limit: 2).map(Array.init), [[1, 2, 3], [4, 5]])
        XCTAssertEqual(buffer.handOut(limit: 16).map(Array.init), [[6]])
        XCTAssertFalse(buffer.hasUnsent)
        XCTAssertTrue(buffer.handOut(limit: 16).isEmpty)
    }

    func testAcknowledgedBytesAreFreedAcrossChunkBoundaries() {
        let buffer = HTTP3SendBuffer()
        buffer.append([1, 2, 3])
        buffer.append([4, 5])
        let first = buffer.handOut(limit: 16)
        XCTAssertEqual(first.count, 2)
        buffer.acknowledge(2)  // part of the first chunk: it stays
        buffer.append([6, 7])
        buffer.acknowledge(2)  // the rest of the first chunk and half of the second
        XCTAssertEqual(buffer.handOut(limit: 16).map(Array.init), [[6, 7]])
        buffer.acknowledge(3)
        buffer.append([8])
        XCTAssertEqual(buffer.handOut(limit: 16).map(Array.init), [[8]])
    }
}
