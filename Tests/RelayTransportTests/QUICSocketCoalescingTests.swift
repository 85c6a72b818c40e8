#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import XCTest
import RelayFetchTestSupport
@testable import RelayTransport

/// A QUIC socket's reads hand out the datagrams a sender segmented (a plain socket on
/// 127.0.5.13 with UDP_SEGMENT, so the kernel may pass them on coalesced) one by one, byte for
/// byte and in order, with receive offload (UDP GRO) on, and with it forced off; the sockets of
/// one loop read into one set of receive slots (1 MiB with GRO), not one set each.
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

    /// 32 sockets on one loop, each having read (GRO on: the slots are 16 x 64 KiB): the heap
    /// grows by their send slots (64 x 1452 bytes), not by a megabyte of receive slots each
    /// (1.3 MB a socket before: 1 MiB to receive, 256 KiB to send). Two of them, read in
    /// turn, each get exactly the datagrams sent to it.
    func testTheSocketsOfOneLoopShareTheirReceiveSlots() throws {
        let loop = EventLoop()
        let (sender, senderAddress) = try Self.boundSender()
        defer { close(sender) }
        let before = ProcessMemory.heapBytes
        var sockets: [QUICSocket] = []
        var addresses: [Data] = []
        runOnLoop(loop) {
            for _ in 0..<32 {
                let socket = QUICSocket(loop: loop, coalescing: true)
                do { try socket.open(to: senderAddress) { _, _ in } } catch { XCTFail("\(error)") }
                var piece = [UInt8](repeating: 0, count: 2048)
                _ = try? piece.withUnsafeMutableBytes { try socket.receive(into: $0) }  // nothing waits: one read that finds none
                socket.withAddresses { local, length, _, _ in addresses.append(Data(bytes: local, count: Int(length))) }
                sockets.append(socket)
            }
        }
        let perSocket = (ProcessMemory.heapBytes - before) / sockets.count
        XCTAssertLessThan(perSocket, 160 << 10, "each socket of the loop holds \(perSocket) bytes: receive slots of its own")
        for round in 0..<2 {
            for (index, address) in addresses.prefix(2).enumerated() { try Self.send(Self.datagrams()[round], from: sender, to: address, tag: index) }
        }
        usleep(100_000)
        var received: [[[UInt8]]] = [[], []]
        runOnLoop(loop) {
            var piece = [UInt8](repeating: 0, count: 2048)
            for index in [0, 1] {
                while let count = try? piece.withUnsafeMutableBytes({ try sockets[index].receive(into: $0) }) { received[index].append(Array(piece[..<count])) }
            }
            for socket in sockets { socket.close() }
        }
        for index in [0, 1] {
            XCTAssertEqual(received[index], Self.datagrams()[0].map { Self.tagged($0, index) } + Self.datagrams()[1].map { Self.tagged($0, index) })
        }
    }

    /// `datagram` with its first byte set to `tag` (as it was, for nil).
    private static func tagged(_ datagram: [UInt8], _ tag: Int?) -> [UInt8] { tag.map { [UInt8($0)] + datagram.dropFirst() } ?? datagram }

    /// A plain UDP socket on 127.0.5.13 and its address.
    private static func boundSender() throws -> (Int32, Data) {
        let sender = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.5.13")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(sender, $0, length) == 0 && getsockname(sender, $0, &length) == 0 }
        }
        guard sender >= 0, bound else { throw TestServerError(description: "cannot bind 127.0.5.13") }
        return (sender, withUnsafeBytes(of: address) { Data($0) })
    }

    /// Sends `datagrams` (one size but the last) as one segmented send, each datagram's first byte set to `tag`.
    private static func send(_ datagrams: [[UInt8]], from sender: Int32, to target: Data, tag: Int?) throws {
        var segment = Int32(datagrams[0].count)
        guard setsockopt(sender, 17, 103, &segment, socklen_t(MemoryLayout<Int32>.size)) == 0 else { throw TestServerError(description: "UDP_SEGMENT") }
        let payload = datagrams.flatMap { tagged($0, tag) }
        let sent = target.withUnsafeBytes { address in
            payload.withUnsafeBytes { sendto(sender, $0.baseAddress, $0.count, 0, address.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(address.count)) }
        }
        guard sent == payload.count else { throw TestServerError(description: "sendto sent \(sent) of \(payload.count)") }
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
        let (sender, senderAddress) = try Self.boundSender()
        defer { close(sender) }

        let loop = EventLoop()
        let socket = QUICSocket(loop: loop, coalescing: coalescing)
        var receiverAddress = Data()
        runOnLoop(loop) {
            do { try socket.open(to: senderAddress) { _, _ in } } catch { XCTFail("\(error)") }
            socket.withAddresses { local, localLength, _, _ in receiverAddress = Data(bytes: local, count: Int(localLength)) }
        }
        for send in Self.datagrams() { try Self.send(send, from: sender, to: receiverAddress, tag: nil) }
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
