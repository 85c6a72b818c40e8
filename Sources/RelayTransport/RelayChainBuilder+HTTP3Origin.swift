extension RelayChainBuilder {
    /// Sends `request` to `origin` over HTTP/3 on the session's pooled QUIC connection to it
    /// (one per origin and chain): straight to the origin with no `hops`, else inside a
    /// CONNECT-UDP stream through the last hop, which resolves the origin's name (every hop must
    /// be an HTTP/3 one). Setting up a new connection that takes over `connectTimeout` fails with
    /// a timeout naming where it stalled. The sink hears of the response on the loop. `claim`
    /// is asked once the connection is up: false (another way took the request) sends nothing
    /// and ends the exchange with an error.
    package func startHTTP3Exchange(_ request: HTTP3OriginRequest, origin: RelayEndpoint, through hops: [RelayEndpoint],
                                    connectTimeout: Double, sink: HTTP3ResponseSink,
                                    claim: @escaping () -> Bool = { true }) -> HTTP3OriginExchange {
        let exchange = HTTP3OriginExchange()
        var done = false
        let originHop = HTTP3OriginConnector.describe(origin)
        var stalledAt = originHop
        let timer = context.loop.schedule(after: connectTimeout) {
            guard !done else { return }
            done = true
            sink.http3Finished(.failure(RelayError(hop: stalledAt, cause: .timeout)))
        }
        let started = EventLoop.nowNanos()
        HTTP3OriginConnector(context: context).connection(to: origin, through: hops, started: started, stalled: { stalledAt = $0 }) { [context] result in
            context.loop.cancelTimer(timer)
            guard !done else { return }
            done = true
            switch result {
            case .failure(let error):
                sink.http3Finished(.failure(error))
            case .success(let (connection, setUp)):
                guard !exchange.cancelled else { return }
                guard claim() else {
                    return sink.http3Finished(.failure(RelayError(hop: originHop, cause: .protocolError("TCP carried the request"))))
                }
                sink.http3Connected(setUp)
                let stream = HTTP3RequestStream(connection: connection, request: request, loop: context.loop, sink: sink)
                exchange.stream = stream
                if exchange.paused { stream.setReadingPaused(true) }
                stream.start()
            }
        }
        return exchange
    }
}
