import HTTPCore

/// An HTTP request as it goes to an origin over HTTP/3: the pseudo-header values, the header
/// fields (names lower-cased on the wire) and the content, if any: whole, or streamed from a source.
package struct HTTP3OriginRequest: Sendable {
    package var method: String
    /// "host:port" or "host" as the origin's URL names it.
    package var authority: String
    /// The path and query.
    package var path: String
    package var headerFields: HTTPFields
    /// nil: no content (the stream ends with the header block).
    package var content: [UInt8]?
    /// Content read piece by piece as the origin takes it (used when `content` is nil).
    package var streamedContent: HTTP3ContentSource?

    package init(method: String, authority: String, path: String, headerFields: HTTPFields, content: [UInt8]?,
                 streamedContent: HTTP3ContentSource? = nil) {
        self.method = method
        self.authority = authority
        self.path = path
        self.headerFields = headerFields
        self.content = content
        self.streamedContent = streamedContent
    }
}

/// How a new QUIC connection to an origin was set up, for `-v` and HAR: the relay hops' tunnels
/// (none when direct), then the origin's QUIC handshake (transport and TLS at once), in seconds
/// from the exchange's start.
package struct HTTP3ConnectionSetUp: Sendable {
    /// Each relay hop's report, nearest first.
    package let hopReports: [HopReport]
    /// When the origin's handshake began: the tunnels (and the name lookup) took this long.
    package let handshakeStarted: Double
    /// When the origin's connection was up.
    package let connected: Double
    /// The origin as `-v` names it (hop index 0).
    package let origin: HopDescription
}

/// Receives one HTTP/3 exchange's response, on the transport's loop, in order: the connection
/// it went on, the head, the content in pieces, then how it ended (once; also when it failed
/// before any head).
package protocol HTTP3ResponseSink: AnyObject {
    /// The request went on a connection: one this exchange set up (`setUp`), or an open one (nil).
    func http3Connected(_ setUp: HTTP3ConnectionSetUp?)
    func http3ReceivedHead(status: Int, fields: [(name: String, value: String)])
    func http3Received(_ bytes: [UInt8])
    func http3Finished(_ result: Result<Void, RelayError>)
}

/// A running HTTP/3 exchange with an origin, as its reader steers it: pause and resume the
/// content (flow control holds the origin back), or cancel. Loop thread only.
package final class HTTP3OriginExchange {
    /// Set by the builder once a connection took the request.
    var stream: HTTP3RequestStream?
    private(set) var cancelled = false
    /// Set before the stream exists, applied when it does.
    private(set) var paused = false

    package func setReadingPaused(_ paused: Bool) {
        self.paused = paused
        stream?.setReadingPaused(paused)
    }

    /// Resets the stream (H3_REQUEST_CANCELLED); the sink hears nothing more.
    package func cancel() {
        cancelled = true
        stream?.cancel()
    }

    /// True once the request went to a connection (it may have reached the origin).
    package var requestSent: Bool { stream != nil }

    /// Gives the request up if it has not gone to a connection yet (the connection is still
    /// being set up), so it can go another way without reaching the origin twice; the
    /// connection's set-up goes on for later requests. False when it was already sent.
    package func withdrawIfNotSent() -> Bool {
        guard stream == nil else { return false }
        cancelled = true
        return true
    }
}
