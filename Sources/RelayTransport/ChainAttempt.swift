/// The state of one tunnel build: the chain, which hop is in progress (for timeout errors), the
/// per-hop reports for `-v`, and the single completion.
final class ChainAttempt {
    /// The chain; a hop may be swapped for its fallback while the attempt runs.
    private(set) var hops: [RelayEndpoint]
    let started: UInt64
    /// Credentials that answer hops' 407 challenges on this attempt, by 1-based hop index: sent
    /// as that hop's `Proxy-Authorization` in place of its own (`fields(ofHop:)`). Not part of
    /// the hops, so pooled connections (keyed on hops) carry the retry's new stream.
    let credentials: [Int: String]
    var currentHop: HopDescription
    private(set) var reports: [HopReport] = []
    private var reused: [Int: Bool] = [:]
    /// Pooled HTTP/3 connections this attempt reused, by hop.
    private var reusedHTTP3: [Int: WeakHTTP3Connection] = [:]
    private(set) var isFinished = false
    /// Streams relays turned away unprocessed and this attempt sent again, by hop.
    private var refusedRetries: [Int: Int] = [:]
    var onFinish: ((Result<TransportLayer, RelayError>) -> Void)?

    init(hops: [RelayEndpoint], started: UInt64, credentials: [Int: String] = [:]) {
        self.hops = hops
        self.started = started
        self.credentials = credentials
        currentHop = HopRegistry.describe(hop: 1, of: hops, negotiated: nil)
    }

    /// How hop `index` is described, as its connector names it: its endpoint and, once known,
    /// the protocol spoken to it.
    func description(ofHop index: Int, negotiated alpn: String?) -> HopDescription {
        HopRegistry.describe(hop: index, of: hops, negotiated: alpn)
    }

    /// Hop `index`'s own header fields for its CONNECT, with this attempt's answer to its
    /// challenge as `Proxy-Authorization` when there is one.
    func fields(ofHop index: Int) -> [(String, String)] {
        let own = hops[index - 1].fieldPairs
        guard let credential = credentials[index] else { return own }
        return own.filter { $0.0.lowercased() != "proxy-authorization" } + [("Proxy-Authorization", credential)]
    }

    /// A copy with the same hops, reports and current hop, for the other side of a race.
    func copy() -> ChainAttempt {
        let other = ChainAttempt(hops: hops, started: started, credentials: credentials)
        other.adopt(self)
        return other
    }

    /// Takes the hops and reports of `other`, the side of a race that won.
    func adopt(_ other: ChainAttempt) {
        hops = other.hops
        currentHop = other.currentHop
        reports = other.reports
        reused = other.reused
        reusedHTTP3 = other.reusedHTTP3
    }

    /// Points hop `index`'s QUIC side at `port` on the same host (from the relay's Alt-Svc).
    func useHTTP3Port(_ port: UInt16, hop index: Int) {
        hops[index - 1].port = port
    }

    /// Replaces hop `index` (1-based) by its TCP fallback endpoint.
    func fallBack(hop index: Int) {
        if let replacement = hops[index - 1].tcpFallback { hops[index - 1] = replacement }
    }

    func note(hop index: Int, reused: Bool) { self.reused[index] = reused }

    /// Notes that hop `index`'s tunnel goes over `connection`, taken from the pool.
    func noteReused(_ connection: HTTP3RelayConnection, hop index: Int) { reusedHTTP3[index] = WeakHTTP3Connection(connection) }

    /// The attempt timed out at hop `index`: a pooled connection it was waiting on takes no new
    /// tunnels (QUIC hears nothing from a relay that restarted, or from one on a dead path, until
    /// its idle timeout), so the next tunnel opens a fresh one rather than waiting there too.
    func retireReusedConnection(atHop index: Int) { reusedHTTP3[index]?.connection?.retire() }

    /// Whether a stream hop `index` refused unprocessed may be sent again: a few times per hop,
    /// so a relay that refuses every stream fails the attempt rather than spin until its timeout.
    func mayRetryRefusedStream(atHop index: Int) -> Bool {
        guard !isFinished, refusedRetries[index, default: 0] < 3 else { return false }
        refusedRetries[index, default: 0] += 1
        return true
    }

    func recordOpen(hop index: Int, description: HopDescription) {
        reports.append(HopReport(hop: description, connectedAfter: Double(EventLoop.nowNanos() - started) / 1e9,
                                 reusedConnection: reused[index] ?? false))
    }

    /// Completes the attempt once; a layer that arrives after a timeout is closed.
    func finish(_ result: Result<TransportLayer, RelayError>) {
        guard !isFinished else {
            if case .success(let layer) = result { layer.close() }
            return
        }
        isFinished = true
        onFinish?(result)
        onFinish = nil
    }
}

private struct WeakHTTP3Connection {
    weak var connection: HTTP3RelayConnection?
    init(_ connection: HTTP3RelayConnection) { self.connection = connection }
}
