/// What an `HTTP3RelayConnection` asks of QUIC: streams, credit, shutdowns and sending. The
/// connection is `QUICConnection` (ngtcp2); the layer tests run HTTP/3 over an in-memory one
/// against an nghttp3 server. Loop thread only; the calls made from inside the QUIC stack's
/// callbacks (`extendCredit`, the shutdowns) only queue frames, and `flush` sends them.
protocol QUICStreamTransport: AnyObject {
    /// Receives the stream events (unretained: the application owns the transport).
    var application: QUICApplication? { get set }
    /// True while the QUIC stack runs (inside its callbacks): events wait for `quicDidProcess`.
    var isProcessing: Bool { get }
    /// Runs the handshake; `quicHandshakeCompleted` comes first, then `completion`, once.
    func connect(_ completion: @escaping (Result<Void, RelayError>) -> Void)
    /// A new bidirectional stream, or nil while the peer allows no more (wait for `quicMoreStreamsAllowed`).
    func openBidirectionalStream() -> Int64?
    func openUnidirectionalStream() -> Int64?
    /// Bidirectional streams the peer's MAX_STREAMS still lets us open.
    var bidirectionalStreamsLeft: Int { get }
    /// Gives the peer `count` more bytes of credit on a stream and on the connection.
    func extendCredit(stream id: Int64, by count: Int)
    /// Resets a stream in both directions (RESET_STREAM and STOP_SENDING).
    func abortStream(_ id: Int64, applicationError code: UInt64)
    /// Asks the peer to stop sending on a stream (STOP_SENDING).
    func stopReading(stream id: Int64, applicationError code: UInt64)
    /// Abandons our sending side of a stream (RESET_STREAM).
    func stopWriting(stream id: Int64, applicationError code: UInt64)
    /// Sends what is pending (when the stack returns, if it is running).
    func flush()
    /// Packets written but not yet taken by the path below (a CONNECT-UDP tunnel's backlog).
    var queuedBytes: Int { get }
    /// Ends the connection with CONNECTION_CLOSE carrying `code`; the application is not told.
    func close(applicationError code: UInt64)
}

extension QUICConnection: QUICStreamTransport {}
