/// What runs on a `QUICConnection` (HTTP/3): it takes stream events from QUIC and supplies the
/// stream data QUIC sends. Called on the loop. The `quicStream*`, `quicReceived` and
/// `quicAcknowledged` events come from inside ngtcp2's callbacks: they may change the
/// application's own state and call `QUICConnection.extendCredit`, nothing that sends; events
/// for the layers above wait for `quicDidProcess`. A thrown error closes the connection.
protocol QUICApplication: AnyObject {
    /// The handshake finished (certificate, pins and ALPN checked): set up before any stream data
    /// is delivered, which may follow in the same packet.
    func quicHandshakeCompleted() throws(RelayError)
    /// Bytes that arrived on a stream, in order; `fin` when they are its last.
    func quicReceived(_ bytes: UnsafeBufferPointer<UInt8>, fin: Bool, onStream id: Int64) throws(RelayError)
    /// The relay acknowledged `count` more bytes sent on a stream: they may be freed.
    func quicAcknowledged(_ count: UInt64, onStream id: Int64) throws(RelayError)
    /// The stream is closed in both directions; `code` is the application error code, if any.
    func quicStreamClosed(_ id: Int64, applicationError code: UInt64?) throws(RelayError)
    /// The relay reset the stream (RESET_STREAM) or asked us to stop sending (STOP_SENDING).
    func quicStreamAborted(_ id: Int64, applicationError code: UInt64) throws(RelayError)
    /// Flow control lets more data go out on a stream that was blocked.
    func quicStreamUnblocked(_ id: Int64) throws(RelayError)
    /// The relay allows more bidirectional streams.
    func quicMoreStreamsAllowed()

    /// The next stream data to send; its buffers stay valid until the relay acknowledges them.
    func quicNextStreamData() throws(RelayError) -> QUICStreamChunk?
    /// QUIC accepted `count` bytes of the chunk last returned for a stream.
    func quicWrote(_ count: Int, onStream id: Int64) throws(RelayError)
    /// The stream's flow-control window is full; wait for `quicStreamUnblocked`.
    func quicStreamBlocked(_ id: Int64)
    /// The stream's sending side is closed: supply no more data for it.
    func quicStreamWriteClosed(_ id: Int64)

    /// A round of packets or timers is done, outside ngtcp2's callbacks: deliver queued events.
    func quicDidProcess()
    /// The connection ended (relay closed it, idle timeout, network error); not called on `close`.
    func quicConnectionFailed(_ error: RelayError)
}

/// Stream data for one QUIC packet: which stream, whether it ends there, and the bytes.
struct QUICStreamChunk {
    let streamID: Int64
    let fin: Bool
    let buffers: [UnsafeRawBufferPointer]
}
