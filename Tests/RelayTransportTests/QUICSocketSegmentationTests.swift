#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import XCTest
@testable import RelayTransport

/// A QUIC socket's batched sends reach a real UDP socket (the kernel's loopback) as the same
/// datagrams, byte for byte and in order, with UDP segmentation offload on (runs of equal-size
/// packets, a shorter one ending a run, runs capped at the kernel's segment limit) and forced off.
/// The receiver is a plain socket on 127.0.5.12.
final class QUICSocketSegmentationTests: XCTestCase {
    /// 70 full packets (more than one message's 64 segments), a short one, 9 of another size, one alone.
    private static let lengths = Array(repeating: 1200, count: 70) + [700] + Array(repeating: 1000, count: 9) + [1452]

    func testSegmentedSendsArriveAsTheSameDatagrams() throws {
        let (received, segmented) = try sendAndReceive(segmentation: true)
        XCTAssertEqual(received, Self.datagrams())
        XCTAssertGreaterThan(segmented, 0, "no message carried more than one datagram: segmentation was not used")
    }

    func testSendsWithSegmentationForcedOffArriveAsTheSameDatagrams() throws {
        let (received, segmented) = try sendAndReceive(segmentation: false)
        XCTAssertEqual(received, Self.datagrams())
        XCTAssertEqual(segmented, 0)
    }

    /// Each datagram's bytes name its index, so a lost, repeated, merged or reordered one shows.
    private static func datagrams() -> [[UInt8]] {
        lengths.enumerated().map { index, length in (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index &* 31) } }
    }

    private func sendAndReceive(segmentation: Bool) throws -> (received: [[UInt8]], segmented: Int) {
        let receiver = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        XCTAssertGreaterThanOrEqual(receiver, 0)
        defer { close(receiver) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.5.12")
        var buffer = Int32(4 << 20)
        setsockopt(receiver, SOL_SOCKET, SO_RCVBUF, &buffer, socklen_t(MemoryLayout<Int32>.size))
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(receiver, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(receiver, $0, length) == 0 && getsockname(receiver, $0, &length) == 0 }
        }
        XCTAssertTrue(bound, "cannot bind 127.0.5.12")
        let target = withUnsafeBytes(of: address) { Data($0) }

        let loop = EventLoop()
        let done = DispatchSemaphore(value: 0)
        var outcome: Result<Int, any Error> = .success(0)
        loop.execute {
            let socket = QUICSocket(loop: loop, segmentation: segmentation)
            do {
                try socket.open(to: target) { _, _ in }
                for datagram in Self.datagrams() {
                    let queued = try datagram.withUnsafeBytes { try socket.send($0) }
                    XCTAssertTrue(queued)
                }
                let flushed = try socket.flush()
                XCTAssertTrue(flushed)
                outcome = .success(socket.segmentedMessages)
            } catch {
                outcome = .failure(error)
            }
            socket.close()
            done.signal()
        }
        done.wait()
        let segmented = try outcome.get()

        var received: [[UInt8]] = []
        var piece = [UInt8](repeating: 0, count: 65_536)
        for _ in Self.lengths {
            let count = piece.withUnsafeMutableBytes { recv(receiver, $0.baseAddress, $0.count, 0) }
            guard count >= 0 else { break }
            received.append(Array(piece[..<count]))
        }
        return (received, segmented)
    }
}
