import Foundation
import Locking

/// The bounded hand-over between libcurl's thread (the producer) and a response body's reader.
/// It holds at most about `capacity` bytes: when full, the producer is told to pause the
/// transfer (libcurl stops reading, so every layer below stops too), and `resumeProducer` runs
/// once the reader has taken it below half of that. A reader that only wants the body in a file
/// can hand the file over instead (`writeDirectly`): libcurl's thread then writes each piece
/// into it as it comes, with no copy and no hand-off.
final class BodyBuffer: Sendable {
    /// What the producer should do with a chunk it offered.
    enum Offer { case taken, pause, failed }

    let capacity: Int
    private let state = Locked(State())

    /// Everything both sides touch, behind the one lock.
    private struct State {
        var chunks: [Data] = []
        var head = 0
        var buffered = 0
        var producerPaused = false
        var outcome: Result<Void, Error>?
        var response: Result<HTTPResponse, Error>?
        var responseWaiter: CheckedContinuation<HTTPResponse, Error>?
        var chunkWaiter: CheckedContinuation<Data?, Error>?
        var resumeProducer: (@Sendable () -> Void)?
        var cancelProducer: (@Sendable () -> Void)?
        /// Set once the reader handed over a file (`writeDirectly`).
        var direct: DirectWrite?
        var directWaiter: CheckedContinuation<DirectWriteOutcome?, Never>?
    }

    /// Asks libcurl's thread to unpause the transfer (set by the session before it starts).
    var resumeProducer: (@Sendable () -> Void)? {
        get { state.withLock { $0.resumeProducer } }
        set { state.withLock { $0.resumeProducer = newValue } }
    }
    /// Stops the transfer when the reader goes away before the end.
    var cancelProducer: (@Sendable () -> Void)? {
        get { state.withLock { $0.cancelProducer } }
        set { state.withLock { $0.cancelProducer = newValue } }
    }

    init(capacity: Int = 1 << 20) { self.capacity = capacity }

    /// Whether the producer is paused for a full buffer, and whether the transfer has ended:
    /// states a test waits for instead of sleeping.
    var progress: (producerPaused: Bool, ended: Bool) { state.withLock { ($0.producerPaused, $0.outcome != nil) } }

    // MARK: producer side (libcurl's thread)

    /// The final response's head arrived: whoever waits for it goes on.
    func receivedResponse(_ head: HTTPResponse) {
        let waiter: CheckedContinuation<HTTPResponse, Error>? = state.withLock { state in
            guard state.response == nil else { return nil }
            state.response = .success(head)
            defer { state.responseWaiter = nil }
            return state.responseWaiter
        }
        waiter?.resume(returning: head)
    }

    /// Takes a copy of `count` bytes unless the buffer is full (then nothing is taken: libcurl
    /// offers the same bytes again after it is unpaused). Small pieces (libcurl hands over one
    /// TLS record, 16 KiB, at a time) are joined into chunks of up to `chunkSize`, and a waiting
    /// reader is woken by `flush()`, once per turn of libcurl's loop rather than per piece.
    func offer(_ bytes: UnsafeRawPointer, count: Int) -> Offer {
        enum Step { case done(Offer), direct(DirectWrite) }
        let step: Step = state.withLock { state in
            if let direct = state.direct { return .direct(direct) }
            if state.buffered >= capacity {
                state.producerPaused = true
                return .done(.pause)
            }
            if state.head < state.chunks.count, state.chunks[state.chunks.count - 1].count + count <= Self.chunkSize {
                state.chunks[state.chunks.count - 1].append(bytes.assumingMemoryBound(to: UInt8.self), count: count)
            } else {
                var chunk = Data(capacity: max(count, Self.chunkSize))
                chunk.append(bytes.assumingMemoryBound(to: UInt8.self), count: count)
                state.chunks.append(chunk)
            }
            state.buffered += count
            return .done(.taken)
        }
        switch step {
        case .done(let offer): return offer
        case .direct(let direct): return direct.write(UnsafeRawBufferPointer(start: bytes, count: count)) ? .taken : .failed
        }
    }

    /// The size chunks are joined up to.
    static let chunkSize = 256 * 1024

    /// Hands what arrived to a reader that waits for it (libcurl's thread, after each turn).
    func flush() {
        let handOver: (CheckedContinuation<Data?, Error>, Data, (@Sendable () -> Void)?)? = state.withLock { state in
            guard let waiter = state.chunkWaiter, state.head < state.chunks.count else { return nil }
            state.chunkWaiter = nil
            let (chunk, resume) = take(&state)
            return (waiter, chunk, resume)
        }
        guard let (waiter, chunk, resume) = handOver else { return }
        resume?()
        waiter.resume(returning: chunk)
    }

    /// The transfer ended: cleanly (`.success`) or not. The reader sees the error after the
    /// bytes that came before it.
    func finish(_ result: Result<Void, Error>) {
        if finishDirect(result) { return }
        typealias Wake = (head: CheckedContinuation<HTTPResponse, Error>?, headResult: Result<HTTPResponse, Error>?,
                          chunk: CheckedContinuation<Data?, Error>?)
        let wake: Wake? = state.withLock { state in
            guard state.outcome == nil else { return nil }
            state.outcome = result
            var headWaiter: CheckedContinuation<HTTPResponse, Error>?
            if state.response == nil {
                if case .failure(let error) = result { state.response = .failure(error) } else { state.response = .failure(FetchError(.transfer("the transfer ended without a response"))) }
                headWaiter = state.responseWaiter
                state.responseWaiter = nil
            }
            let waiter = state.chunks.count == state.head ? state.chunkWaiter : nil
            if waiter != nil { state.chunkWaiter = nil }
            return (headWaiter, state.response, waiter)
        }
        guard let wake else { return }
        if let headWaiter = wake.head, let headResult = wake.headResult { headWaiter.resume(with: headResult) }
        flush()  // a reader waiting while bytes are still buffered gets them first
        switch result {
        case .success: wake.chunk?.resume(returning: nil)
        case .failure(let error): wake.chunk?.resume(throwing: error)
        }
    }

    // MARK: writing into a file from libcurl's thread

    /// The rest of the body goes into `fd` (a regular file or a device, opened for writing)
    /// from libcurl's thread as it arrives; returns, once the transfer ended, the bytes written
    /// and the transfer's error (or the file's: a failed write stops the transfer). nil when the
    /// transfer had already ended: the reader takes the rest with `next()` as before.
    func writeDirectly(to fd: Int32, path: String) async -> DirectWriteOutcome? {
        await withCheckedContinuation { (continuation: CheckedContinuation<DirectWriteOutcome?, Never>) in
            enum Switch { case ended, switched((@Sendable () -> Void)?) }
            let outcome: Switch = state.withLock { state in
                guard state.outcome == nil, state.direct == nil else { return .ended }
                // What is buffered goes first, written by the producer before its next piece.
                let direct = DirectWrite(fd: fd, path: path, backlog: Array(state.chunks[state.head...]))
                state.chunks.removeAll()
                state.head = 0
                state.buffered = 0
                state.direct = direct
                state.directWaiter = continuation
                guard state.producerPaused else { return .switched(nil) }
                state.producerPaused = false
                return .switched(state.resumeProducer)
            }
            switch outcome {
            case .ended: continuation.resume(returning: nil)
            case .switched(let resume): resume?()
            }
        }
    }

    /// After the transfer ended, in direct mode: writes what the producer never got to and
    /// wakes the reader with the count or the error. False when not in direct mode.
    private func finishDirect(_ result: Result<Void, Error>) -> Bool {
        let handedOver: (DirectWrite, CheckedContinuation<DirectWriteOutcome?, Never>?)? = state.withLock { state in
            guard let direct = state.direct, state.outcome == nil else { return nil }
            state.outcome = result
            defer { state.directWaiter = nil }
            return (direct, state.directWaiter)
        }
        guard let (direct, waiter) = handedOver else { return false }
        // A backlog the producer never wrote goes in even after a failure: as on the chunk path,
        // every byte that came before the error is kept (what -C - continues from).
        _ = direct.write(UnsafeRawBufferPointer(start: nil, count: 0))
        var failure: Error? = direct.failure
        if failure == nil, case .failure(let error) = result { failure = error }
        waiter?.resume(returning: DirectWriteOutcome(written: direct.written, failure: failure))
        return true
    }

    // MARK: reader side

    /// Waits for the final response's head (or the failure that came first).
    func waitForResponse() async throws -> HTTPResponse {
        try await withCheckedThrowingContinuation { continuation in
            let response: Result<HTTPResponse, Error>? = state.withLock { state in
                if state.response == nil { state.responseWaiter = continuation }
                return state.response
            }
            if let response { continuation.resume(with: response) }
        }
    }

    /// The next chunk, in order; nil at the clean end. Throws the transfer's error after the
    /// chunks that arrived before it.
    func next() async throws -> Data? {
        switch try takeReady() {
        case .chunk(let chunk): return chunk
        case .end: return nil
        case .wait: break
        }
        return try await withCheckedThrowingContinuation { continuation in
            switch readyOrWait(continuation) {
            case .chunk(let chunk, let resume):
                resume?()
                continuation.resume(returning: chunk)
            case .ended(.success): continuation.resume(returning: nil)
            case .ended(.failure(let error)): continuation.resume(throwing: error)
            case .waiting: break
            }
        }
    }

    private enum Ready { case chunk(Data), end, wait }

    /// A chunk or the end, when one is there without waiting (throws the transfer's error).
    private func takeReady() throws -> Ready {
        enum Found { case chunk(Data, (@Sendable () -> Void)?), ended(Result<Void, Error>), none }
        let found: Found = state.withLock { state in
            if state.head < state.chunks.count {
                let (chunk, resume) = take(&state)
                return .chunk(chunk, resume)
            }
            return state.outcome.map { .ended($0) } ?? .none
        }
        switch found {
        case .chunk(let chunk, let resume):
            resume?()
            return .chunk(chunk)
        case .ended(let outcome):
            try outcome.get()
            return .end
        case .none:
            return .wait
        }
    }

    private enum Waited { case chunk(Data, (@Sendable () -> Void)?), ended(Result<Void, Error>), waiting }

    /// What arrived since `takeReady`, or else `continuation` parked as the waiting reader.
    private func readyOrWait(_ continuation: CheckedContinuation<Data?, Error>) -> Waited {
        state.withLock { state in
            if state.head < state.chunks.count {
                let (chunk, resume) = take(&state)
                return .chunk(chunk, resume)
            }
            if let outcome = state.outcome { return .ended(outcome) }
            state.chunkWaiter = continuation
            return .waiting
        }
    }

    /// The reader will read no more: a transfer still running is stopped.
    func cancel() {
        let cancelRunning = state.withLock { $0.outcome == nil ? $0.cancelProducer : nil }
        cancelRunning?()
    }

    /// Removes the oldest chunk (lock held); once half the room is free again, also returns the
    /// call that wakes a paused producer (made after unlocking: it only queues work).
    private func take(_ state: inout State) -> (Data, (@Sendable () -> Void)?) {
        let chunk = state.chunks[state.head]
        state.chunks[state.head] = Data()
        state.head += 1
        state.buffered -= chunk.count
        if state.head == state.chunks.count {
            state.chunks.removeAll(keepingCapacity: true)
            state.head = 0
        } else if state.head > 64 {
            state.chunks.removeFirst(state.head)
            state.head = 0
        }
        guard state.producerPaused && state.buffered <= capacity / 2 else { return (chunk, nil) }
        state.producerPaused = false
        return (chunk, state.resumeProducer)
    }
}

/// What a direct write came to: the bytes that went into the file, and the transfer's (or the
/// file's) error if it did not end cleanly.
struct DirectWriteOutcome: Sendable {
    let written: Int
    let failure: Error?
}

/// A file the body goes straight into from libcurl's thread. Touched by the producer only
/// (its pieces, then `finish` after the transfer ended), so it needs no lock of its own.
final class DirectWrite: @unchecked Sendable {
    let fd: Int32
    let path: String
    private var backlog: [Data]
    private(set) var written = 0
    private(set) var failure: FetchError?

    init(fd: Int32, path: String, backlog: [Data]) {
        self.fd = fd
        self.path = path
        self.backlog = backlog
    }

    /// Writes what was buffered before the switch, then `bytes`; false (and `failure` set) when
    /// the file refused them.
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard failure == nil else { return false }
        if !backlog.isEmpty {
            let pending = backlog
            backlog = []
            for chunk in pending where !chunk.withUnsafeBytes(writeAll) { return false }
        }
        return writeAll(bytes)
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if let error = DownloadFile.writeAll(bytes, to: fd, path: path) {
            failure = error
            return false
        }
        written += bytes.count
        return true
    }
}
