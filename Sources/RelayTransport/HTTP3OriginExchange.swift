/// An HTTP request as it goes to an origin over HTTP/3: the pseudo-header values, the header
/// fields (names lower-cased on the wire) and the whole content, if any.
package struct HTTP3OriginRequest: Sendable {
    package var method: String
    /// "host:port" or "host" as the origin's URL names it.
    package var authority: String
    /// The path and query.
    package var path: String
    package var headerFields: [HeaderField]
    /// nil: no content (the stream ends with the header block).
    package var content: [UInt8]?

    package init(method: String, authority: String, path: String, headerFields: [HeaderField], content: [UInt8]?) {
        self.method = method
        self.authority = authority
        self.path = path
        self.headerFields = headerFields
        self.content = content
    }
}

/// Receives one HTTP/3 exchange's response, on the transport's loop, in order: the head, the
/// content in pieces, then how it ended (once; also when it failed before any head).
package protocol HTTP3ResponseSink: AnyObject {
    func http3ReceivedHead(status: Int, fields: [(name: String, value: String)])
    func http3Received(_ bytes: [UInt8])
    func http3Finished(_ result: Result<Void, RelayError>)
}

/// A running HTTP/3 exchange with an origin, as its reader steers it: pause and resume the
/// content (flow control holds the origin back), or cancel. Loop thread only.
package final class HTTP3OriginExchange {
    fileprivate var stream: HTTP3RequestStream?
    fileprivate var cancelled = false
    /// Set before the stream exists, applied when it does.
    fileprivate var paused = false

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

extension RelayChainBuilder {
    /// Sends `request` to `origin` over HTTP/3 on the session's pooled QUIC connection to it
    /// (one per origin and chain): straight to the origin with no `hops`, else inside a
    /// CONNECT-UDP stream through the last hop, which resolves the origin's name (every hop must
    /// be an HTTP/3 one). Setting up a new connection that takes over `connectTimeout` fails with
    /// a timeout naming where it stalled. The sink hears of the response on the loop.
    package func startHTTP3Exchange(_ request: HTTP3OriginRequest, origin: RelayEndpoint, through hops: [RelayEndpoint],
                                    connectTimeout: Double, sink: HTTP3ResponseSink) -> HTTP3OriginExchange {
        let exchange = HTTP3OriginExchange()
        var done = false
        let originHop = HTTP3OriginConnector.describe(origin)
        var stalledAt = originHop
        let timer = context.loop.schedule(after: connectTimeout) {
            guard !done else { return }
            done = true
            sink.http3Finished(.failure(RelayError(hop: stalledAt, cause: .timeout)))
        }
        HTTP3OriginConnector(context: context).connection(to: origin, through: hops, stalled: { stalledAt = $0 }) { [context] result in
            context.loop.cancelTimer(timer)
            guard !done else { return }
            done = true
            switch result {
            case .failure(let error):
                sink.http3Finished(.failure(error))
            case .success(let connection):
                guard !exchange.cancelled else { return }
                let stream = HTTP3RequestStream(connection: connection, request: request, sink: sink)
                exchange.stream = stream
                if exchange.paused { stream.setReadingPaused(true) }
                stream.start()
            }
        }
        return exchange
    }
}
