#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SystemIO

/// What a `QUICConnection` sends its packets over: a UDP socket to the relay (`QUICSocket`), or
/// a CONNECT-UDP stream through the previous HTTP/3 hop (`ConnectUDPDatagramPath`). One packet is
/// one datagram either way; the packets of one write go out together at `flush`. Loop thread only.
protocol QUICDatagramPath: AnyObject {
    /// True when the path needs the relay's address (resolved by the connection) to open.
    var needsRelayAddress: Bool { get }
    /// Starts the path; `handler` runs when datagrams wait (readable) or sending may resume (writable).
    func open(to address: Data, handler: @escaping (_ readable: Bool, _ writable: Bool) -> Void) throws(SystemError)
    /// Calls `body` with the local and remote addresses ngtcp2 keeps for the path (after `open`).
    func withAddresses(_ body: (UnsafePointer<sockaddr>, socklen_t, UnsafePointer<sockaddr>, socklen_t) -> Void)
    /// Reads one datagram into `buffer`; nil when none is waiting.
    func receive(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int?
    /// Queues one datagram for `flush`; false when it cannot go now (the handler hears when it can).
    func send(_ packet: UnsafeRawBufferPointer) throws(SystemError) -> Bool
    /// Sends what `send` queued, as few writes as the path allows; false when some must wait
    /// for the writable event.
    func flush() throws(SystemError) -> Bool
    /// Asks for (or stops asking for) a writable event.
    func watchWritable(_ writable: Bool)
    /// Bytes of packets queued and not yet gone below the path (0 for a UDP socket, whose
    /// kernel buffer is the network's).
    var queuedBytes: Int { get }
    /// Why the path failed, when the layer below it did (a relay's error rather than errno).
    var failure: RelayError? { get }
    func close()
}

extension QUICSocket: QUICDatagramPath {
    var needsRelayAddress: Bool { true }
    var failure: RelayError? { nil }
    var queuedBytes: Int { 0 }
}
