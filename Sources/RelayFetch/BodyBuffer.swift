import Foundation

/// The bounded hand-over between libcurl's thread (the producer) and a response body's reader.
/// It holds at most about `capacity` bytes: when full, the producer is told to pause the
/// transfer (libcurl stops reading, so every layer below stops too), and `resumeProducer` runs
/// once the reader has taken it below half of that.
final class BodyBuffer: @unchecked Sendable {
    /// What the producer should do with a chunk it offered.
    enum Offer { case taken, pause }

    let capacity: Int
    private let lock = NSLock()
    /// Filled blocks of `storage`, oldest first from `head`; the last may still be filling.
    private var chunks: [(block: UnsafeMutableRawPointer, count: Int)] = []
    private let storage: ChunkStorage
    private var head = 0
    private var buffered = 0
    private var producerPaused = false
    private var outcome: Result<Void, Error>?
    private var response: Result<HTTPResponse, Error>?
    private var responseWaiter: CheckedContinuation<HTTPResponse, Error>?
    private var chunkWaiter: CheckedContinuation<Data?, Error>?
    /// Asks libcurl's thread to unpause the transfer (set by the session before it starts).
    var resumeProducer: (@Sendable () -> Void)?
    /// Stops the transfer when the reader goes away before the end.
    var cancelProducer: (@Sendable () -> Void)?

    init(capacity: Int = 1 << 20) {
        self.capacity = capacity
        storage = ChunkStorage(blockSize: Self.chunkSize, maximumSpare: capacity / Self.chunkSize + 2)
    }

    deinit {
        for chunk in chunks[head...] { storage.recycle(chunk.block) }
    }

    // MARK: producer side (libcurl's thread)

    /// The final response's head arrived: whoever waits for it goes on.
    func receivedResponse(_ head: HTTPResponse) {
        let waiter: CheckedContinuation<HTTPResponse, Error>? = lock.withLock {
            guard response == nil else { return nil }
            response = .success(head)
            defer { responseWaiter = nil }
            return responseWaiter
        }
        waiter?.resume(returning: head)
    }

    /// Takes a copy of `count` bytes unless the buffer is full (then nothing is taken: libcurl
    /// offers the same bytes again after it is unpaused). Small pieces (libcurl hands over one
    /// TLS record, 16 KiB, at a time) are joined into chunks of up to `chunkSize`, and a waiting
    /// reader is woken by `flush()`, once per turn of libcurl's loop rather than per piece.
    func offer(_ bytes: UnsafeRawPointer, count: Int) -> Offer {
        lock.lock()
        defer { lock.unlock() }
        if buffered >= capacity {
            producerPaused = true
            return .pause
        }
        var copied = 0
        while copied < count {
            if head == chunks.count || chunks[chunks.count - 1].count == Self.chunkSize {
                chunks.append((storage.block(), 0))
            }
            let last = chunks.count - 1
            let piece = min(count - copied, Self.chunkSize - chunks[last].count)
            (chunks[last].block + chunks[last].count).copyMemory(from: bytes + copied, byteCount: piece)
            chunks[last].count += piece
            copied += piece
        }
        buffered += count
        return .taken
    }

    /// The size chunks are joined up to.
    static let chunkSize = 256 * 1024

    /// Hands what arrived to a reader that waits for it (libcurl's thread, after each turn).
    func flush() {
        lock.lock()
        guard let waiter = chunkWaiter, head < chunks.count else {
            lock.unlock()
            return
        }
        chunkWaiter = nil
        let (chunk, resume) = take()
        lock.unlock()
        resume?()
        waiter.resume(returning: chunk)
    }

    /// The transfer ended: cleanly (`.success`) or not. The reader sees the error after the
    /// bytes that came before it.
    func finish(_ result: Result<Void, Error>) {
        lock.lock()
        guard outcome == nil else {
            lock.unlock()
            return
        }
        outcome = result
        var headWaiter: CheckedContinuation<HTTPResponse, Error>?
        if response == nil {
            if case .failure(let error) = result { response = .failure(error) } else { response = .failure(FetchError(.transfer("the transfer ended without a response"))) }
            headWaiter = responseWaiter
            responseWaiter = nil
        }
        let waiter = chunks.count == head ? chunkWaiter : nil
        if waiter != nil { chunkWaiter = nil }
        let headResult = response
        lock.unlock()
        if let headWaiter, let headResult { headWaiter.resume(with: headResult) }
        flush()  // a reader waiting while bytes are still buffered gets them first
        switch result {
        case .success: waiter?.resume(returning: nil)
        case .failure(let error): waiter?.resume(throwing: error)
        }
    }

    // MARK: reader side

    /// Waits for the final response's head (or the failure that came first).
    func waitForResponse() async throws -> HTTPResponse {
        try await withCheckedThrowingContinuation { continuation in
            lock.lock()
            if let response {
                lock.unlock()
                continuation.resume(with: response)
                return
            }
            responseWaiter = continuation
            lock.unlock()
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
            lock.lock()
            if head < chunks.count {
                let (chunk, resume) = take()
                lock.unlock()
                resume?()
                continuation.resume(returning: chunk)
            } else if let outcome {
                lock.unlock()
                switch outcome {
                case .success: continuation.resume(returning: nil)
                case .failure(let error): continuation.resume(throwing: error)
                }
            } else {
                chunkWaiter = continuation
                lock.unlock()
            }
        }
    }

    private enum Ready { case chunk(Data), end, wait }

    /// A chunk or the end, when one is there without waiting (throws the transfer's error).
    private func takeReady() throws -> Ready {
        lock.lock()
        if head < chunks.count {
            let (chunk, resume) = take()
            lock.unlock()
            resume?()
            return .chunk(chunk)
        }
        guard let outcome else {
            lock.unlock()
            return .wait
        }
        lock.unlock()
        try outcome.get()
        return .end
    }

    /// The reader will read no more: a transfer still running is stopped.
    func cancel() {
        let running = lock.withLock { outcome == nil }
        if running { cancelProducer?() }
    }

    /// Removes the oldest chunk (lock held); once half the room is free again, also returns the
    /// call that wakes a paused producer (made after unlocking: it only queues work).
    private func take() -> (Data, (@Sendable () -> Void)?) {
        let chunk = storage.data(chunks[head].block, count: chunks[head].count)
        head += 1
        buffered -= chunk.count
        if head == chunks.count {
            chunks.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 64 {
            chunks.removeFirst(head)
            head = 0
        }
        guard producerPaused && buffered <= capacity / 2 else { return (chunk, nil) }
        producerPaused = false
        return (chunk, resumeProducer)
    }
}
