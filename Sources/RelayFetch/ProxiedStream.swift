#if canImport(Glibc)
import Glibc
#endif
import RelayTransport

/// One client stream a local proxy handed a session (`Session.carry(socket:to:...)`): its chain
/// is picked and built; on the chain's failure, with a pool, the next chain is picked and built,
/// until a tunnel opens or none is left; then the client's socket and the tunnel are joined.
// @unchecked: after `carry` queues `attempt`, everything runs on the opener's loop; `fail` runs
// elsewhere only when that queueing failed, so nothing ran on the loop.
final class ProxiedStream: @unchecked Sendable {
    private let fd: Int32
    private let target: TunnelTarget
    private let firstBytes: [UInt8]
    private let chains: RelayChainSelector
    private let opener: TunnelOpener
    private let answer: (RelayError?, Int) -> [UInt8]
    private let ended: (ProxiedStreamReport) -> Void
    /// The hops of the chain tried last, for the log line when no chain is left.
    private var lastChain: [String] = []

    init(fd: Int32, target: TunnelTarget, firstBytes: [UInt8], chains: RelayChainSelector, opener: TunnelOpener,
         answer: @escaping (RelayError?, Int) -> [UInt8], ended: @escaping (ProxiedStreamReport) -> Void) {
        self.fd = fd
        self.target = target
        self.firstBytes = firstBytes
        self.chains = chains
        self.opener = opener
        self.answer = answer
        self.ended = ended
    }

    /// Builds the chain for the target now; after `failovers` chains failed already.
    func attempt(failovers: Int) {
        let chain: Int?, hops: [RelayEndpoint]
        do {
            (chain, hops) = try Session.streamChain(forHost: target.host, chains: chains)
        } catch {
            let refusal = error.relayError.map(RelayError.init)
                ?? RelayError(hop: HopDescription(index: 0, endpoint: target.description, protocolName: "relay"), cause: .unsupported("\(error)"))
            return fail(refusal, chain: lastChain)
        }
        let names = hops.map { "\($0.host):\($0.port)" }
        lastChain = names
        opener.builder.build(hops: hops, to: target, connectTimeout: opener.connectTimeout) { [self] result in
            switch result {
            case .success(let (tunnel, _)):
                if let chain { chains.report(chain: chain, nil) }
                join(tunnel, chain: names)
            case .failure(let error):
                if let chain, chains.report(chain: chain, error), let pool = chains.pool, failovers + 1 < pool.chainCount {
                    return attempt(failovers: failovers + 1)
                }
                fail(error, chain: names)
            }
        }
    }

    /// No tunnel: the client hears why, and its socket is closed.
    func fail(_ error: RelayError, chain: [String]) {
        Self.sendWhole(answer(error, chain.count), to: fd)
        Glibc.close(fd)
        ended(ProxiedStreamReport(chain: chain, failure: error))
    }

    private func join(_ tunnel: any TransportLayer, chain: [String]) {
        Self.sendWhole(answer(nil, chain.count), to: fd)
        if !firstBytes.isEmpty { tunnel.send(firstBytes) }
        let bridge = TunnelSocketBridge(loop: opener.loop, fd: fd, tunnel: tunnel)
        let id = ObjectIdentifier(bridge)
        opener.bridges[id] = bridge
        bridge.start(onEnd: { _ in }, onClose: { [opener, ended, firstBytes, weak bridge] in
            let report = ProxiedStreamReport(chain: chain, bytesFromClient: firstBytes.count + (bridge?.bytesFromClient ?? 0),
                                             bytesToClient: bridge?.bytesToClient ?? 0)
            opener.bridges[id] = nil
            ended(report)
        })
    }

    /// A short answer to a fresh socket: its send buffer is empty, so one non-blocking send
    /// takes it whole; a client that has gone just misses it.
    private static func sendWhole(_ bytes: [UInt8], to fd: Int32) {
        guard !bytes.isEmpty else { return }
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
}
