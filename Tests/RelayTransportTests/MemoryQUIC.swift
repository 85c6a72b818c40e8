import XCTest
@testable import RelayTransport

/// QUIC's stream service for an `HTTP3RelayConnection`, in memory: stream bytes go to and come
/// from an `NGHTTP3TestServer` with no packets, no TLS and no socket. What QUIC itself would
/// enforce is modelled where the tests need it: stream limits, each request stream's send and
/// receive windows, resets in both directions (a stream closes once both sides are reset), and
/// events delivered while "processing" with `quicDidProcess` after, as ngtcp2 does.
final class MemoryQUIC: QUICStreamTransport {
    weak var application: QUICApplication?
    let server: NGHTTP3TestServer
    private(set) var isProcessing = false
    private(set) var closedWithCode: UInt64?
    /// Streams we reset (RESET_STREAM and STOP_SENDING), with the code.
    private(set) var abortedByUs: [Int64: UInt64] = [:]

    /// Bidirectional streams the peer allows us (raise with `allowStreams`).
    private var streamLimit: Int
    private var openedStreams = 0
    private var nextUnidirectional: Int64 = 2
    /// Bytes we may still send on each request stream (the server's window), and the default.
    private var sendWindow: [Int64: Int] = [:]
    private let initialSendWindow: Int
    /// Bytes the server may still send us on each request stream (our credit), and the default.
    private var receiveWindow: [Int64: Int] = [:]
    private let initialReceiveWindow: Int
    private var blockedHere: Set<Int64> = []
    private var blockedAtServer: Set<Int64> = []
    private var pendingAborts: [(id: Int64, code: UInt64, byServer: Bool)] = []
    private var pumping = false
    private var flushRequested = false

    init(server: NGHTTP3TestServer, streamLimit: Int = 100, sendWindow: Int = 1 << 30, receiveWindow: Int = 1 << 20) {
        self.server = server
        self.streamLimit = streamLimit
        initialSendWindow = sendWindow
        initialReceiveWindow = receiveWindow
    }

    private static func isRequestStream(_ id: Int64) -> Bool { id & 3 == 0 }

    /// How many of `count` bytes on stream `id` its window lets through now, taken from the
    /// window (request streams only: control and QPACK streams are not held back here).
    private static func admit(_ count: Int, on id: Int64, window: inout [Int64: Int], initial: Int) -> Int {
        guard isRequestStream(id) else { return count }
        let open = window[id, default: initial]
        let admitted = min(count, open)
        window[id] = open - admitted
        return admitted
    }

    // MARK: QUICStreamTransport

    /// Packets go straight to the peer: nothing waits below.
    var queuedBytes: Int { 0 }

    func connect(_ completion: @escaping (Result<Void, RelayError>) -> Void) {
        do throws(RelayError) {
            try application?.quicHandshakeCompleted()
            completion(.success(()))
        } catch {
            completion(.failure(error))
        }
        flush()
    }

    func openBidirectionalStream() -> Int64? {
        guard closedWithCode == nil, openedStreams < streamLimit else { return nil }
        defer { openedStreams += 1 }
        return Int64(openedStreams) * 4
    }

    var bidirectionalStreamsLeft: Int { closedWithCode == nil ? max(0, streamLimit - openedStreams) : 0 }

    func openUnidirectionalStream() -> Int64? {
        defer { nextUnidirectional += 4 }
        return nextUnidirectional
    }

    func extendCredit(stream id: Int64, by count: Int) {
        guard Self.isRequestStream(id) else { return }
        receiveWindow[id, default: initialReceiveWindow] += count
        if blockedAtServer.remove(id) != nil { server.unblock(id) }
    }

    func abortStream(_ id: Int64, applicationError code: UInt64) {
        abortedByUs[id] = code
        pendingAborts.append((id, code, false))
    }

    func stopReading(stream id: Int64, applicationError code: UInt64) {}
    func stopWriting(stream id: Int64, applicationError code: UInt64) {}

    func close(applicationError code: UInt64) { closedWithCode = code }

    /// Moves stream bytes both ways until neither side has more (what windows hold back waits).
    func flush() {
        guard closedWithCode == nil else { return }
        guard !pumping else {
            flushRequested = true
            return
        }
        pumping = true
        defer { pumping = false }
        repeat {
            flushRequested = false
            isProcessing = true
            var moved = false
            do throws(RelayError) {
                moved = try carryOutgoing()
                moved = try carryIncoming() || moved
                moved = try deliverAborts() || moved
            } catch {
                isProcessing = false
                closedWithCode = HTTP3ErrorCode.internalError
                application?.quicConnectionFailed(error)
                return
            }
            isProcessing = false
            application?.quicDidProcess()
            if moved { flushRequested = true }
        } while flushRequested && closedWithCode == nil
    }

    // MARK: what the test makes QUIC or the relay do

    /// The peer allows `count` more bidirectional streams.
    func allowStreams(_ count: Int) {
        streamLimit += count
        application?.quicMoreStreamsAllowed()
        flush()
    }

    /// The server grants `count` more bytes on stream `id` (MAX_STREAM_DATA).
    func openSendWindow(_ id: Int64, by count: Int) {
        sendWindow[id, default: initialSendWindow] += count
        if blockedHere.remove(id) != nil {
            isProcessing = true
            try? application?.quicStreamUnblocked(id)
            isProcessing = false
        }
        flush()
    }

    /// The relay resets stream `id` (RESET_STREAM and STOP_SENDING with `code`).
    func relayResets(_ id: Int64, code: UInt64) {
        pendingAborts.append((id, code, true))
        flush()
    }

    /// The connection is lost (idle timeout, network error).
    func fail(_ error: RelayError) {
        closedWithCode = 0
        application?.quicConnectionFailed(error)
    }

    // MARK: carrying bytes

    private func carryOutgoing() throws(RelayError) -> Bool {
        guard let application else { return false }
        var moved = false
        while let chunk = try application.quicNextStreamData() {
            let id = chunk.streamID
            let bytes = chunk.buffers.flatMap { Array($0) }
            let count = Self.admit(bytes.count, on: id, window: &sendWindow, initial: initialSendWindow)
            let fin = chunk.fin && count == bytes.count
            if count > 0 || fin {
                try application.quicWrote(count, onStream: id)
                server.receive(Array(bytes.prefix(count)), fin: fin, on: id)
                try application.quicAcknowledged(UInt64(count), onStream: id)
                moved = true
            }
            if count < bytes.count {
                blockedHere.insert(id)
                application.quicStreamBlocked(id)
            }
        }
        return moved
    }

    private func carryIncoming() throws(RelayError) -> Bool {
        guard let application else { return false }
        var moved = false
        while let output = server.nextOutput() {
            let id = output.id
            let count = Self.admit(output.bytes.count, on: id, window: &receiveWindow, initial: initialReceiveWindow)
            let fin = output.fin && count == output.bytes.count
            if count > 0 || fin {
                server.wrote(count, on: id)
                try output.bytes.prefix(count).withUnsafeBufferPointer { (bytes) throws(RelayError) in
                    try application.quicReceived(bytes, fin: fin, onStream: id)
                }
                server.acknowledged(count, on: id)
                moved = true
            }
            // Credit our side gave while it read (the window reopened) lets the rest go next round.
            if count < output.bytes.count && receiveWindow[id, default: initialReceiveWindow] == 0 {
                blockedAtServer.insert(id)
                server.block(id)
            }
        }
        return moved
    }

    /// Resets reach the other side; once a stream is reset both ways QUIC closes it on both.
    private func deliverAborts() throws(RelayError) -> Bool {
        guard !pendingAborts.isEmpty, let application else { return false }
        let aborts = pendingAborts
        pendingAborts = []
        for abort in aborts {
            if abort.byServer {
                server.shutDownWriting(abort.id)
                try application.quicStreamAborted(abort.id, applicationError: abort.code)
            } else {
                server.shutDownReading(abort.id)
                server.closeStream(abort.id, code: abort.code)
                try application.quicStreamClosed(abort.id, applicationError: abort.code)
            }
        }
        return true
    }
}
