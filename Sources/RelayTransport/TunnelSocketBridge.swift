#if canImport(Glibc)
import Glibc
#endif
import SystemIO

/// Joins a connected tunnel to one end of a socketpair, so a client library holding the other
/// end (libcurl) talks through the relays as if over a plain socket. Buffers at most
/// `highWater` bytes toward the client before pausing the tunnel.
package final class TunnelSocketBridge: TransportLayerDelegate {
    private let loop: EventLoop
    private let fd: Int32
    private let tunnel: TransportLayer
    private var toClient = ByteQueue()
    private var closed = false
    private var tunnelEnded = false
    /// Whether the socket is watched for writability (changed only when that changes).
    private var watchingWritable = false
    /// Whether reading from the tunnel is paused because the client is behind.
    private var tunnelPaused = false
    private let highWater = 1 << 20
    /// Bytes from the client queued in the tunnel past which the client's socket is not read
    /// until they drain to half: an upload goes no faster than the relays take it, instead of
    /// piling up here at the speed libcurl can read its input.
    private let upHighWater = 1 << 20
    private var clientReadsPaused = false
    /// Queued bytes toward the client past which they are sent at once; smaller pieces wait for
    /// the end of the loop's turn (`flushScheduled`), so they go in one send.
    private let sendAtOnce = 256 * 1024
    private var flushScheduled = false
    private var onClose: (() -> Void)?
    private var onEnd: ((TunnelEnd) -> Void)?
    private var originRecords = TLSRecordWatch()
    /// Bytes read from the client's socket, and bytes the tunnel delivered for it (a local
    /// proxy's per-connection log line).
    package private(set) var bytesFromClient = 0
    package private(set) var bytesToClient = 0

    /// Takes ownership of `fd` (non-blocking, our end of the socketpair) and of `tunnel`.
    package init(loop: EventLoop, fd: Int32, tunnel: TransportLayer) {
        self.loop = loop
        self.fd = fd
        self.tunnel = tunnel
    }

    /// Starts pumping both ways. `onEnd` hears once how the tunnel ended, before the client sees
    /// the end; `onClose` runs once when both sides are closed (the owner, which keeps the bridge
    /// alive until then, drops it there).
    package func start(onEnd: @escaping (TunnelEnd) -> Void, onClose: @escaping () -> Void) {
        self.onEnd = onEnd
        self.onClose = onClose
        tunnel.delegate = self
        do {
            try loop.register(fd, writable: false) { [weak self] readable, writable, _ in
                if writable { self?.flushToClient() }
                if readable { self?.readFromClient() }
            }
        } catch {
            shutdown()
        }
        readFromClient()
    }

    private func readFromClient() {
        while !closed {
            let received: [UInt8]?
            do {
                received = try Self.receive(fd, loop: loop)
            } catch {
                shutdown()  // a failed read ends the tunnel, as the client's close does
                return
            }
            guard let bytes = received else { return }  // would block
            if !bytes.isEmpty {
                bytesFromClient += bytes.count
                tunnel.send(bytes)
                if tunnel.queuedBytes > upHighWater { return pauseClientReads() }
                continue
            }
            // The client closed its end (libcurl never half-closes): the tunnel is done.
            shutdown()
            return
        }
    }

    /// One read of `fd` into the loop's read buffer, not the bridge's own (an idle tunnel held
    /// its 64 KiB, most of what a thousand idle proxied connections cost): the bytes read (empty
    /// at the end of the stream), nil when the read would block.
    private static func receive(_ fd: Int32, loop: EventLoop) throws(SystemError) -> [UInt8]? {
        try loop.withReadScratch { buffer throws(SystemError) in
            guard let count = try nonBlockingCall("recv", { recv(fd, buffer.baseAddress, buffer.count, 0) }) else { return nil }
            return Array(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
    }

    /// Stops reading the client until the tunnel's queue has drained to half the high-water
    /// mark (checked every 5 ms on the loop; the layers below tell no drain of their own).
    private func pauseClientReads() {
        clientReadsPaused = true
        loop.update(fd, readable: false, writable: watchingWritable)
        resumeClientReadsWhenDrained()
    }

    private func resumeClientReadsWhenDrained() {
        loop.schedule(after: 0.005) { [weak self] in
            guard let self, !self.closed else { return }
            guard self.tunnel.queuedBytes <= self.upHighWater / 2 else { return self.resumeClientReadsWhenDrained() }
            self.clientReadsPaused = false
            self.loop.update(self.fd, readable: true, writable: self.watchingWritable)
            self.readFromClient()
        }
    }

    private func flushToClient() {
        guard !closed else { return }
        if case .failed = toClient.drain(into: fd) {
            shutdown()
            return
        }
        if watchingWritable != !toClient.isEmpty {
            watchingWritable = !toClient.isEmpty
            loop.update(fd, readable: !clientReadsPaused, writable: watchingWritable)
        }
        if tunnelEnded {
            if toClient.isEmpty { shutdown() }
        } else if tunnelPaused && toClient.count < highWater / 2 {
            tunnelPaused = false
            tunnel.setReadingPaused(false)
        }
    }

    package func layerDidReceive(_ bytes: [UInt8]) {
        originRecords.observe(bytes)
        bytesToClient += bytes.count
        toClient.append(bytes)
        if !tunnelPaused && toClient.count >= highWater {
            tunnelPaused = true
            tunnel.setReadingPaused(true)
        }
        // An inner HTTP/2 hop hands over one DATA frame (16 KiB) at a time, many per read of the
        // hop below: one send per frame was a socket write and a TCP segment each to libcurl.
        if toClient.count >= sendAtOnce {
            flushToClient()
        } else if !flushScheduled {
            flushScheduled = true
            loop.execute { [weak self] in
                self?.flushScheduled = false
                self?.flushToClient()
            }
        }
    }

    package func layerDidReceiveEOF() {
        // Resuming reads below (flushToClient) makes a TLS layer report its close_notify again:
        // without this guard the two recurse until the stack overflows.
        guard !tunnelEnded, !closed else { return }
        tunnelEnded = true
        report(.relayClosed(hop: tunnel.hop, originStreamCut: originRecords.verdict == .truncated))
        if toClient.isEmpty { Glibc.shutdown(fd, Int32(SHUT_WR)) }
        flushToClient()
    }

    package func layerDidFail(_ error: RelayError) {
        if !closed { report(.failed(error)) }
        shutdown()
    }

    private func report(_ end: TunnelEnd) {
        let report = onEnd
        onEnd = nil
        report?(end)
    }

    /// Closes both sides once.
    package func shutdown() {
        guard !closed else { return }
        report(.clientClosed)
        closed = true
        loop.deregister(fd)
        Glibc.close(fd)
        tunnel.close()
        let done = onClose
        onClose = nil
        done?()
    }
}

/// How a bridged tunnel ended, so an error seen by the client can name the hop that ended it.
package enum TunnelEnd: Sendable {
    /// The client closed its end first: the normal end.
    case clientClosed
    /// The relay (`hop`, the last of the chain) ended the tunnel cleanly. `originStreamCut` is
    /// true when the origin's TLS stream stopped inside a record or without a closing alert.
    case relayClosed(hop: HopDescription, originStreamCut: Bool)
    /// A layer of the tunnel failed.
    case failed(RelayError)
}
