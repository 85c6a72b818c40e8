/// One request stream on an `HTTP3RelayConnection`, as the connection and nghttp3's callbacks
/// see it: a CONNECT tunnel to a relay (`HTTP3ConnectStream`) or an exchange with an origin
/// (`HTTP3RequestStream`). The connection submits it, feeds it what nghttp3 reports and resets
/// it; each kind decides what the events mean for the layer above. Loop thread only.
protocol HTTP3StreamHandler: AnyObject {
    var streamID: Int64 { get set }
    /// Set by the connection once it reset the stream, so it does so once.
    var resetSent: Bool { get set }
    /// True once the stream is finished for the layer above (closed, reset or failed).
    var ended: Bool { get }
    var pseudoHeaders: [(String, String)] { get }
    var headers: [(String, String)] { get }
    /// The bytes the stream sends, kept until acknowledged.
    var outgoing: HTTP3SendBuffer { get }
    /// False for a request without content: its stream ends with the header block.
    var sendsContent: Bool { get }
    /// True once everything the stream will send is in `outgoing`: the stream ends after it.
    var contentComplete: Bool { get }

    /// The peer acknowledged some of `outgoing` (freed by then).
    func contentAcknowledged()
    /// A response header field (`:status` included), in order.
    func receivedField(name: String, value: String)
    func receivedStatus(_ status: Int)
    func headersComplete()
    func receivedData(_ bytes: UnsafeBufferPointer<UInt8>)
    /// The peer ended its side of the stream (FIN).
    func receivedEnd()
    /// The peer reset the stream or asked us to stop sending.
    func aborted(code: UInt64)
    /// Both directions are closed and nghttp3 forgot the stream.
    func streamClosed(code: UInt64)
    func connectionFailed(_ error: RelayError)
}

/// A CONNECT stream sends tunnel bytes for as long as it is open, and reads only `:status` and
/// a 407's challenges.
extension HTTP3ConnectStream: HTTP3StreamHandler {
    var sendsContent: Bool { true }
    var contentComplete: Bool { false }
    func receivedField(name: String, value: String) {
        if name == "proxy-authenticate" { noteProxyAuthenticate(value) }
    }
    func contentAcknowledged() {}
}
