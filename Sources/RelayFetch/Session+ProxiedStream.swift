#if canImport(Glibc)
import Glibc
#endif
import RelayTransport

/// How one stream a local proxy carried went, for its log line.
package struct ProxiedStreamReport: Sendable {
    /// The hops' endpoints, nearest the client first.
    package var chain: [String]
    package var bytesFromClient = 0
    package var bytesToClient = 0
    /// Why no tunnel opened (nil: it opened and has ended).
    package var failure: RelayError?

    package init(chain: [String], bytesFromClient: Int = 0, bytesToClient: Int = 0, failure: RelayError? = nil) {
        self.chain = chain
        self.bytesFromClient = bytesFromClient
        self.bytesToClient = bytesToClient
        self.failure = failure
    }
}

extension Session {
    /// The relay hops that carry a stream to `host` (bare, lower-case): the first configuration
    /// that covers it. Throws `.notRelayed` for a host none covers, whatever the configuration
    /// says about direct connections: a local proxy never connects directly, so a covered host
    /// cannot leak and an uncovered one is refused, not guessed at. An OHTTP configuration
    /// carries requests, not streams, and is refused the same way.
    package func relayHops(forHost host: String) throws(FetchError) -> [RelayEndpoint] {
        guard let proxy = configuration.proxyConfigurations.first(where: { $0.covers(host: host) }),
              proxy.obliviousHTTP == nil else { throw FetchError(.notRelayed(host: host)) }
        guard !proxy.relayHops.isEmpty else {
            throw FetchError(.invalidRelay(index: 0, reason: "a relay configuration covers \(host) but has no hops"))
        }
        return try endpoints(proxy.relayHops)
    }

    /// Carries the connected client socket `fd` (non-blocking; now owned by the session) to
    /// `target` through `hops`, on this session's transport: once the chain is built, `answer(nil)`
    /// is written to the client, then `firstBytes` go into the tunnel and the two are joined; if it
    /// cannot be built, `answer(error)` is written and the socket closed. `ended` hears once, on
    /// the session's loop, when the stream is over.
    package func carry(socket fd: Int32, through hops: [RelayEndpoint], to target: TunnelTarget, firstBytes: [UInt8],
                       answer: @escaping (RelayError?) -> [UInt8], ended: @escaping (ProxiedStreamReport) -> Void) {
        let opener = opener
        let chain = hops.map { "\($0.host):\($0.port)" }
        let queued = opener.loop.execute {
            opener.builder.build(hops: hops, to: target, connectTimeout: opener.connectTimeout) { result in
                switch result {
                case .success(let (tunnel, _)):
                    Self.sendWhole(answer(nil), to: fd)
                    if !firstBytes.isEmpty { tunnel.send(firstBytes) }
                    let bridge = TunnelSocketBridge(loop: opener.loop, fd: fd, tunnel: tunnel)
                    let id = ObjectIdentifier(bridge)
                    opener.bridges[id] = bridge
                    bridge.start(onEnd: { _ in }, onClose: { [weak bridge] in
                        let report = ProxiedStreamReport(chain: chain, bytesFromClient: firstBytes.count + (bridge?.bytesFromClient ?? 0),
                                                         bytesToClient: bridge?.bytesToClient ?? 0)
                        opener.bridges[id] = nil
                        ended(report)
                    })
                case .failure(let error):
                    Self.sendWhole(answer(error), to: fd)
                    Glibc.close(fd)
                    ended(ProxiedStreamReport(chain: chain, failure: error))
                }
            }
        }
        if !queued {  // the session has ended
            Glibc.close(fd)
            ended(ProxiedStreamReport(chain: chain, failure: RelayError(hop: HopDescription(index: 1, endpoint: chain.first ?? "", protocolName: "relay"),
                                                                        cause: .closedDuringSetup)))
        }
    }

    /// A short answer to a fresh socket: its send buffer is empty, so one non-blocking send
    /// takes it whole; a client that has gone just misses it.
    private static func sendWhole(_ bytes: [UInt8], to fd: Int32) {
        guard !bytes.isEmpty else { return }
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
}
