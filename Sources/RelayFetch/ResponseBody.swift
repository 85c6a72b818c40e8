import Foundation
import Locking

/// A response body as it arrives (`Session.bytes(for:)`): an asynchronous sequence of its bytes,
/// or of its chunks through `chunks`. At most about 1 MiB waits for the reader; a reader that
/// stops reading pauses the transfer, and with it every layer down to the relay's socket, so
/// a slow reader slows the sender instead of growing memory. Read it once; dropping it before
/// the end stops the transfer. Iteration throws the transfer's error (a relay hop that failed,
/// the idle timeout, `maximumBodySize`) after the bytes that came before it.
public struct ResponseBody: AsyncSequence, Sendable {
    public typealias Element = UInt8

    private let source: Source

    init(buffer: BodyBuffer) { source = Source(buffer: buffer, data: nil) }

    /// A body that is already whole (a cached or Oblivious HTTP response).
    init(data: Data) { source = Source(buffer: nil, data: data) }

    /// The body chunk by chunk, as libcurl delivered it (use this for speed: bytes one at a time
    /// cost a call each).
    public var chunks: Chunks { Chunks(source: source) }

    /// Reads the whole body into memory (for small bodies; large ones defeat the point).
    public func collect(upTo limit: Int = .max) async throws -> Data {
        var data = Data()
        for try await chunk in chunks {
            guard data.count + chunk.count <= limit else {
                source.cancel()
                throw FetchError(.responseTooLarge(limit: limit))
            }
            data.append(chunk)
        }
        return data
    }

    /// Writes the rest of the body into `file` as it arrives. Into a regular file or a device
    /// (/dev/null) the transfer's own thread writes each piece as libcurl hands it over, with no
    /// copy and no hand-off between threads: the fastest way to save a large body. Other files
    /// (a FIFO) are written chunk by chunk. Throws as iteration does, or when the file cannot be
    /// written (which stops the transfer); `file.bytesWritten` counts what went in either way.
    public func write(to file: DownloadFile) async throws {
        if let buffer = source.buffer, let fd = file.directDescriptor,
           let outcome = await buffer.writeDirectly(to: fd, path: file.destination.path) {
            file.recordWritten(outcome.written)
            if let failure = outcome.failure { throw failure }
            return
        }
        for try await chunk in chunks { try file.write(chunk) }
    }

    /// The buffer's `progress` (nil for a body that came whole).
    var progress: (producerPaused: Bool, ended: Bool)? { source.buffer?.progress }

    /// Stops the transfer if it is still running (the reader wants no more).
    public func cancel() { source.cancel() }

    public func makeAsyncIterator() -> Iterator { Iterator(chunks: chunks.makeAsyncIterator()) }

    /// Yields the bytes of each chunk in turn.
    public struct Iterator: AsyncIteratorProtocol {
        var chunks: Chunks.Iterator
        var current = Data()
        var index = 0

        public mutating func next() async throws -> UInt8? {
            while index == current.count {
                guard let chunk = try await chunks.next() else { return nil }
                current = chunk
                index = 0
            }
            defer { index += 1 }
            return current[current.startIndex + index]
        }
    }

    /// The body as a sequence of `Data` chunks.
    public struct Chunks: AsyncSequence, Sendable {
        public typealias Element = Data
        fileprivate let source: Source

        public func makeAsyncIterator() -> Iterator { Iterator(source: source) }

        public struct Iterator: AsyncIteratorProtocol {
            fileprivate let source: Source
            public mutating func next() async throws -> Data? { try await source.next() }
        }
    }

    /// Owns the buffer: when the last copy of the body goes, a transfer still running stops.
    fileprivate final class Source: Sendable {
        let buffer: BodyBuffer?
        private let data: Locked<Data?>

        init(buffer: BodyBuffer?, data: Data?) {
            self.buffer = buffer
            self.data = Locked(data)
        }

        deinit { buffer?.cancel() }

        func next() async throws -> Data? {
            if let buffer { return try await buffer.next() }
            return data.withLock { data in
                defer { data = nil }
                return data.flatMap { $0.isEmpty ? nil : $0 }
            }
        }

        func cancel() { buffer?.cancel() }
    }
}
