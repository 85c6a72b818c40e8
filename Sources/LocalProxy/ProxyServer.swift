#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Locking
import RelayFetch
import RelayTransport

/// `relayfetch proxy`'s server: a SOCKS5 and HTTP proxy on one listening socket whose every
/// connection is carried through the relay chain that covers its target, never directly.
/// A front loop of its own accepts clients and reads their handshakes; each complete request
/// goes to the session of its client's identity (`IsolatedSessions`), whose transport builds
/// the chain and joins it to the client's socket. One log line per connection when it ends.
// @unchecked: `listener`, `handshakes` and `buffer` are touched on `loop` only (`listener` is
// set in init, on the loop, before any client can reach it); what other threads read or change
// (credentials, the stream count) is in `shared`, which locks.
package final class ProxyServer: @unchecked Sendable {
    /// What the server is told at start (and keeps across reloads but the credentials).
    package struct Settings: Sendable {
        package var listen: ProxyListenAddress
        /// The Unix socket's file mode.
        package var unixMode: mode_t = 0o600
        package var credentials = ProxyCredentials()
        /// Whether log lines name the target (off: a log reveals no browsing).
        package var logTargets = false
        /// Seconds a client has to finish its handshake.
        package var handshakeTimeout: Double = 10
        /// Handshakes read at once; a newer client pushes out the oldest, so a flood of idle
        /// connections costs bounded memory and cannot lock clients that speak out.
        package var maximumHandshakes = 1024
        /// Seconds a UDP ASSOCIATE's flow to one target stays open without a datagram.
        package var udpIdleTimeout: Double = 60

        package init(listen: ProxyListenAddress) {
            self.listen = listen
        }
    }

    private struct Shared {
        var credentials: ProxyCredentials
        var openStreams = 0
    }

    private let settings: Settings
    private let loop = EventLoop(name: "relayfetch.proxy")
    private let sessions: IsolatedSessions
    private let log: @Sendable (String) -> Void
    private let shared: Locked<Shared>
    private var listener: ProxyListener?
    /// Clients still in their handshake.
    private var handshakes: [ObjectIdentifier: ProxyClientConnection] = [:]
    private let buffer = ReadBuffer()

    /// Starts listening. Throws when the address cannot be bound.
    package init(settings: Settings, configuration: Session.Configuration, log: @escaping @Sendable (String) -> Void) throws {
        self.settings = settings
        self.log = log
        sessions = IsolatedSessions(configuration: configuration)
        shared = Locked(Shared(credentials: settings.credentials))
        var failure: (any Error)?
        let ready = DispatchSemaphore(value: 0)
        _ = loop.execute { [self] in
            do {
                listener = try ProxyListener(loop: loop, address: settings.listen, mode: settings.unixMode) { [self] fd, peer in
                    accepted(fd, peer: peer)
                }
            } catch {
                failure = error
            }
            ready.signal()
        }
        ready.wait()
        if let failure {
            loop.shutdown()
            throw failure
        }
    }

    /// Streams open now (handshakes not counted).
    package var openStreams: Int { shared.withLock { $0.openStreams } }

    /// New connections use `configuration` (and `credentials`); open ones keep what they have.
    package func reload(configuration: Session.Configuration, credentials: ProxyCredentials) {
        sessions.replace(configuration: configuration)
        shared.withLock { $0.credentials = credentials }
    }

    /// Stops listening and waits (up to `timeout` seconds) for open streams to end, then ends
    /// every session and the front loop.
    package func drain(timeout: Double) {
        let stopped = DispatchSemaphore(value: 0)
        let queued = loop.execute { [self] in
            listener?.close()
            listener = nil
            for connection in Array(handshakes.values) { connection.close() }
            stopped.signal()
        }
        if queued { stopped.wait() }
        let deadline = Date().addingTimeInterval(timeout)
        while openStreams > 0 && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        sessions.invalidateAll()
        loop.shutdown()
        _ = loop.waitUntilEnded(timeout: 5)
    }

    private func accepted(_ fd: Int32, peer: String) {
        if handshakes.count >= settings.maximumHandshakes, let oldest = handshakes.values.min(by: { $0.accepted < $1.accepted }) {
            oldest.close()
        }
        let credentials = shared.withLock { $0.credentials }
        let connection = ProxyClientConnection(loop: loop, fd: fd, peer: peer, credentials: credentials, onRequest: { [self] in
            route($1, fd: $0.fd, peer: $0.peer, started: $0.accepted)
        }, onClose: { [self] connection in
            handshakes[ObjectIdentifier(connection)] = nil
        })
        handshakes[ObjectIdentifier(connection)] = connection
        connection.start(deadline: settings.handshakeTimeout, buffer: buffer)
    }

    /// Carries a complete request through its identity's session, or refuses it.
    private func route(_ request: ProxyRequest, fd: Int32, peer: String, started: UInt64) {
        let line = ProxyLogLine(client: peer, request: request, showsTarget: settings.logTargets, started: started)
        let session: Session
        do {
            session = try sessions.acquire(for: request.identity)
        } catch {
            return refuse(fd, request, .generalFailure, line: line, why: "cannot start a session: \(error)")
        }
        // UDP ASSOCIATE names where the client sends from, not a target: each datagram is routed.
        if request.dialect == .socks5Associate { return associate(request, fd: fd, session: session, line: line) }
        guard session.relaysStreams(toHost: request.host) else {
            sessions.release(session)
            return refuse(fd, request, .notAllowed, line: line, why: "no relay covers the target")
        }
        shared.withLock { $0.openStreams += 1 }
        // The session picks the chain (failing over between chains of a pool) and says which it took.
        session.carry(socket: fd, to: TunnelTarget(host: request.host, port: request.port), firstBytes: request.firstBytes,
                      answer: { error, hops in ProxyHandshake.answer(for: request, error.map { ProxyRefusal($0, chainLength: hops) }) },
                      ended: { [self] report in
            shared.withLock { $0.openStreams -= 1 }
            sessions.release(session)
            var line = line
            line.chain = report.chain
            log(line.text(report))
        })
    }

    /// A UDP ASSOCIATE: a UDP socket beside the client's connection, then the association runs on
    /// the session's transport loop until that connection closes.
    private func associate(_ request: ProxyRequest, fd: Int32, session: Session, line: ProxyLogLine) {
        guard session.carriesDatagrams else {
            sessions.release(session)
            return refuse(fd, request, .unsupported, line: line, why: "no relay chain ends in an HTTP/3 hop to carry UDP")
        }
        guard let (udp, address, port, client) = UDPAssociation.socket(beside: fd) else {
            sessions.release(session)
            return refuse(fd, request, .unsupported, line: line, why: "no UDP beside this listener")
        }
        shared.withLock { $0.openStreams += 1 }
        Self.sendWhole(SOCKS5ServerHandshake.associated(address: address, port: port), to: fd)
        let association = UDPAssociation(session: session, control: fd, udp: udp, clientHost: client, idleTimeout: settings.udpIdleTimeout)
        let queued = session.transportLoop.execute { [self] in
            association.start { [self] report in
                shared.withLock { $0.openStreams -= 1 }
                sessions.release(session)
                var line = line
                line.chain = report.chain
                log(line.text(report))
            }
        }
        if !queued {
            Glibc.close(udp)
            Glibc.close(fd)
            shared.withLock { $0.openStreams -= 1 }
            sessions.release(session)
        }
    }

    private func refuse(_ fd: Int32, _ request: ProxyRequest, _ refusal: ProxyRefusal, line: ProxyLogLine, why: String) {
        Self.sendWhole(ProxyHandshake.answer(for: request, refusal), to: fd)
        Glibc.close(fd)
        log(line.text(refused: refusal, why: why))
    }

    /// A short answer to a socket whose send buffer is empty: one non-blocking send takes it.
    static func sendWhole(_ bytes: [UInt8], to fd: Int32) {
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
}
