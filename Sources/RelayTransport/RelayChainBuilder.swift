/// Builds a tunnel through a chain of relays, one layer at a time, bottom first:
/// TCP(hop 1) -> TLS(hop 1) -> CONNECT(hop 2) -> TLS(hop 2) -> ... -> CONNECT(target).
/// It is the only code that opens sockets for relayed traffic, and it has no path that reaches
/// the target without the relays: an empty chain is refused, a failed hop fails the whole build.
public final class RelayChainBuilder {
    private let loop: EventLoop
    private var contexts: [TLSTrust: TLSContext] = [:]

    /// Contexts (and so TLS session state) belong to this builder; give each session its own.
    public init(loop: EventLoop) {
        self.loop = loop
    }

    /// Builds a tunnel to `target` through `hops`. Runs on the loop; `completion` is called once
    /// on the loop with the top layer, connected, or the error of the hop that failed.
    public func build(hops: [RelayEndpoint], to target: TunnelTarget, connectTimeout: Double,
                      completion: @escaping (Result<(TransportLayer, [HopReport]), RelayError>) -> Void) {
        precondition(!hops.isEmpty, "a relayed tunnel needs at least one hop")
        let started = EventLoop.nowNanos()
        var steps: [(HopDescription, (TransportLayer?) throws -> TransportLayer)] = []
        for (offset, relay) in hops.enumerated() {
            let hop = HopDescription(index: offset + 1, endpoint: relay.authority,
                                     protocolName: relay.usesTLS ? "HTTPS, HTTP/1.1 CONNECT" : "HTTP/1.1 CONNECT")
            if offset == 0 {
                steps.append((hop, { [loop] _ in TCPLayer(loop: loop, host: relay.host, port: relay.port, hop: hop) }))
            }
            if relay.usesTLS {
                steps.append((hop, { [unowned self] lower in
                    try TLSLayer(over: lower!, context: context(for: relay.trust), serverName: relay.host,
                                 alpn: ["http/1.1"], hop: hop)
                }))
            }
            let next = offset + 1 < hops.count ? TunnelTarget(host: hops[offset + 1].host, port: hops[offset + 1].port) : target
            let fields = relay.headerFields.map { ($0.name, $0.value) }
            steps.append((hop, { lower in
                HTTP1ConnectLayer(over: lower!, targetHost: next.host, targetPort: next.port, headers: fields, hop: hop)
            }))
        }

        var finished = false
        var top: TransportLayer?
        var currentHop = steps[0].0
        var reports: [HopReport] = []
        func finish(_ result: Result<(TransportLayer, [HopReport]), RelayError>) {
            guard !finished else { return }
            finished = true
            if case .failure = result { top?.close() }
            completion(result)
        }
        let timer = loop.schedule(after: connectTimeout) {
            finish(.failure(RelayError(hop: currentHop, cause: .timeout)))
        }
        func run(_ index: Int) {
            guard !finished else { return }
            guard index < steps.count else {
                loop.cancelTimer(timer)
                finish(.success((top!, reports)))
                return
            }
            let (hop, make) = steps[index]
            currentHop = hop
            let layer: TransportLayer
            do {
                layer = try make(top)
            } catch {
                loop.cancelTimer(timer)
                finish(.failure(RelayError(hop: hop, cause: .tls(String(describing: error)))))
                return
            }
            top = layer
            layer.connect { result in
                switch result {
                case .success:
                    if layer is HTTP1ConnectLayer {
                        reports.append(HopReport(hop: hop, connectedAfter: Double(EventLoop.nowNanos() - started) / 1e9))
                    }
                    run(index + 1)
                case .failure(let error):
                    self.loop.cancelTimer(timer)
                    finish(.failure(error))
                }
            }
        }
        run(0)
    }

    private func context(for trust: TLSTrust) throws -> TLSContext {
        if let context = contexts[trust] { return context }
        let context = try TLSContext(trust: trust)
        contexts[trust] = context
        return context
    }
}
