#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SystemIO

/// The bottom layer: a non-blocking TCP socket to the first hop. It is the only code that opens
/// sockets for relayed traffic, and it only ever connects to a relay (or a direct, unrelayed host).
package final class TCPLayer: TransportLayer {
    package let hop: HopDescription
    package weak var delegate: TransportLayerDelegate?
    private let loop: EventLoop
    private let host: String
    private let port: UInt16
    private let resolver: HostResolver?
    private var fd: Int32 = -1
    private var outbox = ByteQueue()
    /// Whether the socket is watched for writability (after connecting: only while bytes wait).
    private var watchingWritable = false
    private var paused = false
    /// Reused for every read, so a busy socket does not allocate (and zero) a buffer per event;
    /// large, so a bulk transfer takes few reads (and the layers above few, large deliveries).
    private var readBuffer = [UInt8](repeating: 0, count: 256 * 1024)
    private var closed = false
    /// Set once connected: a later error is a lost connection, not a failed connect.
    private var established = false
    private var connectCompletion: ((Result<Void, RelayError>) -> Void)?

    /// `resolver` resolves `host` when it is a name (nil: the system's resolver).
    package init(loop: EventLoop, host: String, port: UInt16, hop: HopDescription, resolver: HostResolver? = nil) {
        self.loop = loop
        self.host = host
        self.port = port
        self.hop = hop
        self.resolver = resolver
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    package func connect(_ completion: @escaping (Result<Void, RelayError>) -> Void) {
        connectCompletion = completion
        // Only the relay's own name is ever resolved here.
        AddressLookup.resolve(host: host, port: port, resolver: resolver, loop: loop) { [self] result in
            guard !closed else { return }
            switch result {
            case .success(let addresses): attempt(addresses[...])
            case .failure(let why): finishConnect(.failure(RelayError(hop: hop, cause: .resolveFailed(why.reason))))
            }
        }
    }

    private func attempt(_ addresses: ArraySlice<Data>, lastError: RelayError.Cause = .connectionRefused) {
        guard let address = addresses.first else {
            finishConnect(.failure(RelayError(hop: hop, cause: lastError)))
            return
        }
        let family = address.withUnsafeBytes { $0.load(as: sockaddr.self).sa_family }
        let socketFD = socket(Int32(family), Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socketFD >= 0 else {
            finishConnect(.failure(RelayError(hop: hop, cause: .connectFailed(String(cString: strerror(errno))))))
            return
        }
        var one: Int32 = 1
        setsockopt(socketFD, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let rc = address.withUnsafeBytes {
            Glibc.connect(socketFD, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(address.count))
        }
        if rc != 0 && errno != EINPROGRESS {
            let cause = Self.cause(errno)
            Glibc.close(socketFD)
            attempt(addresses.dropFirst(), lastError: cause)
            return
        }
        fd = socketFD
        do {
            try loop.register(socketFD, writable: true) { [weak self] readable, writable, hangup in
                self?.handleEvent(readable: readable, writable: writable, hangup: hangup, remaining: addresses.dropFirst())
            }
        } catch {
            finishConnect(.failure(RelayError(hop: hop, cause: .connectFailed(error.description))))
        }
    }

    private func handleEvent(readable: Bool, writable: Bool, hangup: Bool, remaining: ArraySlice<Data>) {
        if connectCompletion != nil {
            guard writable || hangup else { return }
            var soError: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length)
            if soError != 0 {
                loop.deregister(fd)
                Glibc.close(fd)
                fd = -1
                attempt(remaining, lastError: Self.cause(soError))
                return
            }
            loop.update(fd, writable: false)
            watchingWritable = false
            established = true
            finishConnect(.success(()))
            return
        }
        if writable { flush() }
        if readable && !paused { drain() }
    }

    private func finishConnect(_ result: Result<Void, RelayError>) {
        guard let completion = connectCompletion else { return }
        connectCompletion = nil
        completion(result)
    }

    private func drain() {
        while fd >= 0 && !paused {
            let received: Int?
            do {
                received = try nonBlockingCall("recv") { readBuffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) } }
            } catch {
                fail(Self.cause(error.code))
                return
            }
            guard let count = received else { return }
            guard count > 0 else {
                loop.update(fd, readable: false, writable: !outbox.isEmpty)
                delegate?.layerDidReceiveEOF()
                return
            }
            delegate?.layerDidReceive(Array(readBuffer[0..<count]))
        }
    }

    package var queuedBytes: Int { outbox.count }

    package func send(_ bytes: [UInt8]) {
        guard fd >= 0, !closed else { return }
        outbox.append(bytes)
        flush()
    }

    private func flush() {
        guard fd >= 0 else { return }
        if case .failed(let code) = outbox.drain(into: fd) {
            fail(Self.cause(code))
            return
        }
        // Only a change of interest costs an epoll_ctl (most sends go out at once).
        if watchingWritable != !outbox.isEmpty {
            watchingWritable = !outbox.isEmpty
            loop.update(fd, readable: !paused, writable: watchingWritable)
        }
    }

    package func setReadingPaused(_ paused: Bool) {
        guard self.paused != paused, fd >= 0 else { return }
        self.paused = paused
        watchingWritable = !outbox.isEmpty
        loop.update(fd, readable: !paused, writable: watchingWritable)
        if !paused { drain() }
    }

    package func close() {
        guard !closed else { return }
        closed = true
        if fd >= 0 {
            loop.deregister(fd)
            Glibc.close(fd)
            fd = -1
        }
    }

    private func fail(_ cause: RelayError.Cause) {
        let delegate = delegate
        close()
        var cause = cause
        if established, case .connectFailed(let why) = cause { cause = .connectionLost(why) }
        delegate?.layerDidFail(RelayError(hop: hop, cause: cause))
    }

    private static func cause(_ code: Int32) -> RelayError.Cause {
        code == ECONNREFUSED ? .connectionRefused : .connectFailed(String(cString: strerror(code)))
    }
}
