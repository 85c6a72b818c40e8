#if canImport(Glibc)
import Glibc
#endif
import Foundation
import RelayTransport

/// A session's way into the transport. libcurl connects to the session's abstract Unix socket
/// instead of the origin; each accepted connection is matched to the request that opened it,
/// a relay chain is built for that request's target, and the two are joined byte for byte.
/// Sessions never share an opener, its loop, its listener or its TLS state.
final class TunnelOpener: @unchecked Sendable {
    let loop: EventLoop
    /// The abstract socket name libcurl connects to.
    let listenerName: String
    private let builder: RelayChainBuilder
    private let connectTimeout: Double
    private var listener: LocalSocketListener?
    private let lock = NSLock()
    private var pending: [String: PendingTunnel] = [:]
    /// Called with each tunnel's hop reports (for `-v`), on the event loop.
    var onTunnelOpen: (@Sendable ([HopReport]) -> Void)?

    private struct PendingTunnel {
        let hops: [RelayEndpoint]
        let target: TunnelTarget
        let onFailure: @Sendable (RelayError) -> Void
    }

    init(connectTimeout: Double) throws(FetchError) {
        let loop = EventLoop(name: "relayfetch.transport")
        self.loop = loop
        builder = RelayChainBuilder(loop: loop)
        self.connectTimeout = connectTimeout
        var made: Result<LocalSocketListener, SystemError>?
        let ready = DispatchSemaphore(value: 0)
        var onAccept: ((Int32, String) -> Void)?
        loop.execute {
            made = Result { () throws(SystemError) in
                try LocalSocketListener(loop: loop) { fd, peer in onAccept?(fd, peer) }
            }
            ready.signal()
        }
        ready.wait()
        switch made! {
        case .success(let listener):
            self.listener = listener
            listenerName = listener.name
        case .failure(let error):
            loop.shutdown()
            throw FetchError(.transfer("cannot start the local tunnel listener: \(error)"))
        }
        loop.execute { onAccept = { [weak self] fd, peer in self?.accepted(fd, peer: peer) } }
    }

    /// Makes the socket libcurl will connect to the listener with, remembering which tunnel it
    /// needs. Called on the curl thread from the open-socket callback.
    func prepareSocket(hops: [RelayEndpoint], target: TunnelTarget, onFailure: @escaping @Sendable (RelayError) -> Void) -> Int32? {
        guard let (fd, name) = try? LocalSocketListener.makeClientSocket() else { return nil }
        lock.lock()
        pending[name] = PendingTunnel(hops: hops, target: target, onFailure: onFailure)
        lock.unlock()
        return fd
    }

    private func accepted(_ fd: Int32, peer: String) {
        lock.lock()
        let request = pending.removeValue(forKey: peer)
        lock.unlock()
        guard let request else {
            Glibc.close(fd)  // not a socket this session opened
            return
        }
        builder.build(hops: request.hops, to: request.target, connectTimeout: connectTimeout) { [self] result in
            switch result {
            case .success(let (tunnel, hopReports)):
                onTunnelOpen?(hopReports)
                TunnelSocketBridge(loop: loop, fd: fd, tunnel: tunnel).start()
            case .failure(let error):
                request.onFailure(error)
                Glibc.close(fd)
            }
        }
    }

    /// Stops listening and stops the event loop; open tunnels close with it.
    func shutdown() {
        loop.execute { [self] in
            listener?.close()
            listener = nil
        }
        loop.shutdown()
    }
}
