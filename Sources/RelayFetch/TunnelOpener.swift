#if canImport(Glibc)
import Glibc
#endif
import Foundation
import RelayTransport
import SystemIO

/// A session's way into the transport, the joiner: libcurl connects to the session's loopback
/// listener instead of the origin; each accepted connection is matched (through the `ledger`)
/// to the request that opened it, a relay chain is built for that request's target, and the
/// two are joined byte for byte. Sessions never share an opener, its loop, its listener or its
/// TLS state.
// @unchecked: `builder`, `listener`, `bridges` and `onTunnelOpen` are touched on `loop` only
// (`listener` is set in init, before any work reaches the loop); `listenerPort` is written once,
// in init. Whatever other threads ask lives in `ledger`, which locks.
final class TunnelOpener: @unchecked Sendable {
    let loop: EventLoop
    /// The loopback port libcurl connects to.
    private(set) var listenerPort: UInt16
    let builder: RelayChainBuilder
    /// True when a relay's 407 is answered in the chain (so libcurl's own proxy cannot carry it).
    let answersProxyChallenges: Bool
    let connectTimeout: Double
    private var listener: LoopbackTunnelListener?
    /// Pending and ended tunnels, route names and counts, for any thread.
    let ledger = TunnelLedger()
    /// Open tunnels, owned here until they close (loop thread only).
    var bridges: [ObjectIdentifier: TunnelSocketBridge] = [:]
    /// Called with each tunnel's hop reports (for `-v`), on the event loop.
    var onTunnelOpen: (@Sendable ([HopReport]) -> Void)?

    /// `makeResolver` gives the resolver for relay host names (nil: the system's); it may use the loop.
    init(connectTimeout: Double, idleTimeout: Double, http3HeadStart: Double, proxyChallengeResponder: ProxyChallengeResponder? = nil,
         makeResolver: (EventLoop) throws(FetchError) -> HostResolver?) throws(FetchError) {
        let loop = EventLoop(name: "relayfetch.transport")
        self.loop = loop
        let resolver: HostResolver?
        do {
            resolver = try makeResolver(loop)
        } catch {
            loop.shutdown()
            throw error
        }
        builder = RelayChainBuilder(loop: loop, idleTimeout: idleTimeout, http3HeadStart: http3HeadStart, resolver: resolver)
        builder.proxyChallengeResponder = proxyChallengeResponder
        answersProxyChallenges = proxyChallengeResponder != nil
        self.connectTimeout = connectTimeout
        listenerPort = 0
        var made: Result<LoopbackTunnelListener, SystemError>?
        let ready = DispatchSemaphore(value: 0)
        // The listener's handler holds the opener strongly; shutdown() closes the listener,
        // which drops the handler and so the cycle.
        loop.execute { [self] in
            made = Result { () throws(SystemError) in
                try LoopbackTunnelListener(loop: loop) { [self] fd, peer in accepted(fd, peer: peer) }
            }
            ready.signal()
        }
        ready.wait()
        switch made! {
        case .success(let listener):
            self.listener = listener
            listenerPort = listener.port
        case .failure(let error):
            loop.shutdown()
            throw FetchError(.transfer("cannot start the local tunnel listener: \(error)"))
        }
    }

    /// Makes the socket libcurl will connect to the listener with, remembering which tunnel it
    /// needs. Called on the curl thread from the open-socket callback.
    /// The status hears of a chain that could not be built, and of how a built one ended.
    func prepareSocket(hops: [RelayEndpoint], target: TunnelTarget) -> (fd: Int32, status: TunnelStatus)? {
        guard let (fd, name) = try? LoopbackTunnelListener.makeClientSocket() else { return nil }
        return (fd, ledger.expect(name, hops: hops, target: target))
    }

    private func accepted(_ fd: Int32, peer: String) {
        guard let request = ledger.take(peer) else {
            Glibc.close(fd)  // not a socket this session opened
            return
        }
        builder.build(hops: request.hops, to: request.target, connectTimeout: connectTimeout) { [self] result in
            switch result {
            case .success(let (tunnel, hopReports)):
                request.status.recordOpen(hopReports)
                onTunnelOpen?(hopReports)
                let bridge = TunnelSocketBridge(loop: loop, fd: fd, tunnel: tunnel)
                let id = ObjectIdentifier(bridge)
                bridges[id] = bridge
                bridge.start(onEnd: { [ledger] end in
                    request.status.recordEnd(end)
                    ledger.ended(request)
                }, onClose: { [weak self] in self?.bridges[id] = nil })
            case .failure(let error):
                request.status.recordFailure(error)
                Glibc.close(fd)
            }
        }
    }

    /// Tells `onTunnelOpen` of a tunnel libcurl opened through its proxy. Any thread.
    func reportTunnelOpen(_ reports: [HopReport]) {
        loop.execute { [self] in onTunnelOpen?(reports) }
    }

    /// Connections opened so far to each hop, by 1-based hop index; after `shutdown()`, the
    /// counts as they were when the session ended.
    func connectionsOpened() async -> [Int: Int] {
        var counts = await builderConnectionsOpened()
        let proxied = ledger.proxyConnections
        if proxied > 0 { counts[1, default: 0] += proxied }
        return counts
    }

    private func builderConnectionsOpened() async -> [Int: Int] {
        await withCheckedContinuation { continuation in
            let queued = loop.execute { [builder] in continuation.resume(returning: builder.connectionsOpened) }
            // A stopped loop drops the work; shutdown's last loop turn saved the counts first.
            if !queued {
                loop.waitUntilEnded(timeout: 5)  // its last turns save the counts
                continuation.resume(returning: ledger.finalConnectionsOpened)
            }
        }
    }

    /// Which of `hops` answer a liveness probe (`RelayChainBuilder.probe`).
    func probe(hops: [RelayEndpoint], timeout: Double) async -> [Bool?] {
        await withCheckedContinuation { continuation in
            let queued = loop.execute { [builder] in builder.probe(hops: hops, timeout: timeout) { continuation.resume(returning: $0) } }
            if !queued { continuation.resume(returning: hops.map { _ in nil }) }  // the session has ended: nothing to ask
        }
    }

    /// Stops listening, closes every open tunnel, then stops the event loop.
    func shutdown() {
        loop.execute { [self] in
            let counts = builder.connectionsOpened
            ledger.finalConnectionsOpened = counts
            listener?.close()
            listener = nil
            for bridge in Array(bridges.values) { bridge.shutdown() }
            builder.closeAll()
        }
        loop.shutdown()
    }
}
