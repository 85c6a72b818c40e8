#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import XCTest
@testable import RelayTransport

/// A QUIC socket's reads hand out the datagrams a sender segmented (a plain socket on
/// 127.0.5.13 with UDP_SEGMENT, so the kernel may pass them on coalesced) one by one, byte for
/// byte and in order, with receive offload (UDP GRO) on, and with it forced off.
final class QUICSocketCoalescingTests: XCTestCase {
    /// Two sends: 20 datagrams of 1200 bytes and a short one, then 10 of 1000.
    private static let sends: [[Int]] = [Array(repeating: 1200, count: 20) + [300], Array(repeating: 1000, count: 10)]

    func testCoalescedReadsAreCutIntoTheSameDatagrams() throws {
        let (received, coalesced) = try sendAndReceive(coalescing: true)
        XCTAssertEqual(received, Self.datagrams().flatMap { $0 })
        XCTAssertGreaterThan(coalesced, 0, "no read held more than one datagram: receive offload was not used")
    }

    func testReadsWithCoalescingForcedOffGetTheSameDatagrams() throws {
        let (received, coalesced) = try sendAndReceive(coalescing: false)
        XCTAssertEqual(received, Self.datagrams().flatMap { $0 })
        XCTAssertEqual(coalesced, 0)
    }

    private static func datagrams() -> [[[UInt8]]] {
        var index = 0
        return sends.map { lengths in
            lengths.map { length in
                index += 1
                return (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 5 &+ index &* 17) }
            }
        }
    }

    private func sendAndReceive(coalescing: Bool) throws -> (received: [[UInt8]], coalesced: Int) {
        let sender = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        XCTAssertGreaterThanOrEqual(sender, 0)
        defer { close(sender) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.5.13")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(sender, $0, length) == 0 && getsockname(sender, $0, &length) == 0 }
        }
        XCTAssertTrue(bound, "cannot bind 127.0.5.13")
        let senderAddress = withUnsafeBytes(of: address) { Data($0) }

        let loop = EventLoop()
        let socket = QUICSocket(loop: loop, coalescing: coalescing)
        var receiverAddress = Data()
        runOnLoop(loop) {
            do { try socket.open(to: senderAddress) { _, _ in } } catch { XCTFail("\(error)") }
            socket.withAddresses { local, localLength, _, _ in receiverAddress = Data(bytes: local, count: Int(localLength)) }
        }
        for send in Self.datagrams() {
            var segment = Int32(send[0].count)
            XCTAssertEqual(setsockopt(sender, 17, 103, &segment, socklen_t(MemoryLayout<Int32>.size)), 0, "UDP_SEGMENT")
            let payload = send.flatMap { $0 }
            let sent = receiverAddress.withUnsafeBytes { target in
                payload.withUnsafeBytes { sendto(sender, $0.baseAddress, $0.count, 0, target.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(target.count)) }
            }
            XCTAssertEqual(sent, payload.count)
        }
        usleep(100_000)  // both sends are in the receiver's queue
        var received: [[UInt8]] = []
        var coalesced = 0
        runOnLoop(loop) {
            var piece = [UInt8](repeating: 0, count: 2048)
            while let count = try? piece.withUnsafeMutableBytes({ try socket.receive(into: $0) }) {
                received.append(Array(piece[..<count]))
            }
            coalesced = socket.coalescedMessages
            socket.close()
        }
        return (received, coalesced)
    }

    private func runOnLoop(_ loop: EventLoop, _ work: @escaping () -> Void) {
        let done = DispatchSemaphore(value: 0)
        loop.execute {
            work()
            done.signal()
        }
        done.wait()
    }
}
