import Glibc
import XCTest
@testable import RelayTransport

/// ByteQueue over a real non-blocking socket pair with a small send buffer, so sends stop part
/// way through a piece and through a gather of pieces: every byte arrives once, in order.
final class ByteQueueTests: XCTestCase {
    private var fds: [Int32] = [-1, -1]

    override func setUpWithError() throws {
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds), 0)
        var small: Int32 = 4096
        setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        XCTAssertEqual(fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK), 0)
    }

    override func tearDown() {
        fds.forEach { close($0) }
    }

    private func readAvailable() -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let got = buffer.withUnsafeMutableBytes { recv(fds[1], $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if got <= 0 { return out }
            out += buffer[0..<got]
        }
    }

    func testPiecesOfEverySizeArriveInOrderThroughPartialSends() {
        var queue = ByteQueue()
        var expected: [UInt8] = []
        var received: [UInt8] = []
        var next: UInt8 = 0
        // 300 pieces (more than one gather), from 1 byte to 40 KiB (more than the send buffer).
        for index in 0..<300 {
            let size = index % 7 == 0 ? 40_000 : 1 + (index * 37) % 3000
            let piece = (0..<size).map { _ in next &+= 13; return next }
            queue.append(piece)
            queue.append([])
            expected += piece
        }
        XCTAssertEqual(queue.count, expected.count)
        var rounds = 0
        while true {
            let result = queue.drain(into: fds[0])
            received += readAvailable()
            if case .drained = result { break }
            guard case .wouldBlock = result else { return XCTFail("send failed: \(result)") }
            rounds += 1
            XCTAssertEqual(queue.count + received.count, expected.count, "bytes lost or doubled")
        }
        received += readAvailable()
        XCTAssertGreaterThan(rounds, 10, "the send buffer never filled: partial sends untested")
        XCTAssertTrue(queue.isEmpty)
        XCTAssertEqual(received.count, expected.count)
        XCTAssertTrue(received == expected, "bytes out of order")
        // Reusable after draining.
        queue.append([1, 2, 3])
        if case .drained = queue.drain(into: fds[0]) {} else { XCTFail("not drained") }
        XCTAssertEqual(readAvailable(), [1, 2, 3])
    }

    func testClosedPeerIsAFailureNotASignal() {
        var queue = ByteQueue()
        close(fds[1])
        fds[1] = -1
        queue.append([UInt8](repeating: 7, count: 10))
        guard case .failed(let code) = queue.drain(into: fds[0]) else { return XCTFail("sent to a closed peer") }
        XCTAssertEqual(code, EPIPE)
    }
}
